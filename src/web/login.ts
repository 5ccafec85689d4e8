// What the browser gets before it has the token: a form that asks for it once. No script: the
// token goes to POST /login, which answers with the page's cookie (HttpOnly, so no script can read
// it, and nothing is kept in local storage).
const escapeHtml = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

export function loginPage(message: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>termd: sign in</title>
<style>body{font:15px system-ui,sans-serif;background:#111;color:#ddd;display:grid;place-items:center;height:100vh;margin:0}
form{background:#1c1c1c;padding:2em;border-radius:8px;min-width:22em}input{width:100%;box-sizing:border-box;padding:.5em;margin:.5em 0 1em;background:#000;color:#ddd;border:1px solid #444}
button{padding:.5em 1.5em}p.msg{color:#f88}code{color:#8cf}</style></head>
<body><form method="post" action="/login">
<h2>termd</h2>
<p class="msg">${escapeHtml(message)}</p>
<label for="token">Token (<code>termd token</code> on the daemon's machine)</label>
<input id="token" name="token" type="password" autocomplete="current-password" autofocus required>
<button type="submit">Open</button>
</form></body></html>`;
}
