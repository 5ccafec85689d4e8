// `--http HOST:PORT` (or a bare PORT, which binds loopback only) and the checks of what a request
// says about where it is going: the Host header against the listen address (DNS rebinding cannot
// make a browser send a name the daemon does not answer to), the Origin against the server's own.

export interface ListenAddress {
  hostname: string;
  port: number;
}

export function parseListen(text: string): ListenAddress {
  const bare = /^\d+$/.test(text);
  const m = bare ? null : /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(text);
  const port = Number(bare ? text : m?.[2]);
  if ((!bare && !m) || !Number.isInteger(port) || port > 65535) {
    throw new Error(`--http needs HOST:PORT or PORT (for 127.0.0.1:PORT), not ${JSON.stringify(text)}`);
  }
  const hostname = bare ? "127.0.0.1" : m![1]!.replace(/^\[(.*)\]$/, "$1");
  return { hostname, port };
}

/** The host part of a Host header or a URL's host, lower case, IPv6 without brackets. */
function hostName(host: string): string {
  const h = host.toLowerCase();
  if (h.startsWith("[")) return h.slice(1, h.indexOf("]"));
  const colon = h.lastIndexOf(":");
  return colon >= 0 && h.indexOf(":") === colon ? h.slice(0, colon) : h;
}

// node:net is loaded when an address is checked, not with the module: the daemon parses --listen
// at start, and node:net is ~5 MB of a daemon's memory that a daemon without --http never uses.
const isIP = (h: string): number => process.getBuiltinModule("node:net").isIP(h);

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "::1"]);
const isLoopback = (h: string) => LOOPBACK_NAMES.has(h) || (isIP(h) === 4 && h.startsWith("127."));
const isWildcard = (h: string) => h === "0.0.0.0" || h === "::";

export interface AddressPolicy {
  listen: ListenAddress;
  /** Extra names the daemon answers to (a reverse proxy's public name); `*` allows any. */
  allowHosts: string[];
  /** Extra origins whose pages may call it (`https://ops.example.com`); `*` allows any. */
  allowOrigins: string[];
}

export function hostAllowed(host: string | null, p: AddressPolicy): boolean {
  if (!host) return false;
  const name = hostName(host);
  const listen = p.listen.hostname.toLowerCase();
  if (p.allowHosts.some((a) => a === "*" || a.toLowerCase() === name || a.toLowerCase() === host.toLowerCase())) return true;
  if (name === listen) return true;
  if (isLoopback(listen) && isLoopback(name)) return true;
  // On every interface the daemon answers to any address literal: rebinding needs a name.
  return isWildcard(listen) && isIP(name) !== 0;
}

/**
 * A browser says where a request comes from; a page of the daemon's own (same host as the Host
 * it sent) or of an allowed origin may call it. No Origin: not a browser, the token decides.
 */
export function originAllowed(origin: string | null, host: string | null, p: AddressPolicy): boolean {
  if (origin === null) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // "null" (a sandboxed frame, a file) and anything unreadable
  }
  if (p.allowOrigins.some((a) => a === "*" || a.replace(/\/+$/, "").toLowerCase() === url.origin.toLowerCase())) return true;
  return host !== null && url.host.toLowerCase() === host.toLowerCase();
}
