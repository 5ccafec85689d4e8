// The headers of every page the daemon serves (the attach page's files, the sign-in page).
export const PAGE_HEADERS = {
  // xterm.js writes <style> elements of its own; nothing else is inline, nothing comes from elsewhere.
  "Content-Security-Policy": "default-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'",
  "X-Content-Type-Options": "nosniff",
  // Not no-referrer: under it a browser sends `Origin: null` with the page's own form posts.
  "Referrer-Policy": "same-origin",
};
