// What the routes read of a request besides its body: its URL, a path segment, the WebSocket
// subprotocols it offers.
import { HttpError } from "./http-error.ts";

/** The request's URL: a request without a Host (HTTP/1.0, or an empty one) has none and is refused. */
export function urlOf(req: Request): URL {
  const url = req.headers.get("host") ? URL.parse(req.url) : null;
  if (!url) throw new HttpError(400, "BAD_REQUEST", "a request must carry a Host header naming this daemon");
  return url;
}

/** A path segment's percent-escapes decoded; a bad one (`%ZZ`) is the client's error. */
export function segment(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new HttpError(400, "BAD_REQUEST", `bad percent-escape in the path: ${JSON.stringify(raw.slice(0, 64))}`);
  }
}

export function subprotocols(req: Request): string[] {
  return (req.headers.get("sec-websocket-protocol") ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}
