// Is a client's target a remote daemon's URL (`termd daemon --http`) rather than a socket path?
// Its own module: every command-line call asks, and only a URL needs the WebSocket transport.

export function isDaemonUrl(target: string): boolean {
  // Most socket paths fail at the first character; the rest is not a regular expression: compiling
  // one cost every command-line call ~0.3 ms, and a first toLowerCase 0.1 ms.
  const c = target.charCodeAt(0);
  if (c !== 104 && c !== 72) return false;
  const scheme = target.slice(0, 8).toLowerCase();
  return scheme.startsWith("http://") || scheme === "https://";
}
