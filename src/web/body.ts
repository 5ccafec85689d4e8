// A request's body, read up to a bound: past it the client gets a 413 in the JSON error shape
// (Bun's own limit answers with an empty body, so it is set far above this one).
import { HttpError } from "./http-error.ts";

function tooLarge(max: number): HttpError {
  return new HttpError(413, "PAYLOAD_TOO_LARGE", `the request body is over ${max} bytes, its most`);
}

/** The body in the pieces it came in (not joined: a big one is joined off the daemon's thread); 413 as soon as it (or its Content-Length) passes `max` bytes. */
export async function readBodyPieces(req: Request, max: number): Promise<Uint8Array[]> {
  const declared = Number(req.headers.get("content-length") ?? 0);
  if (declared > max) throw tooLarge(max);
  if (!req.body) return [];
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of req.body) {
    size += chunk.length;
    if (size > max) throw tooLarge(max);
    chunks.push(chunk);
  }
  return chunks;
}

/** The body as text; 413 as readBodyPieces says. */
export async function readBody(req: Request, max: number): Promise<string> {
  return Buffer.concat(await readBodyPieces(req, max)).toString("utf8");
}

/** A form field from a body already read (urlencoded, or multipart as a browser may send); null when absent. */
export async function formField(req: Request, body: string, name: string): Promise<string | null> {
  const type = req.headers.get("content-type") ?? "application/x-www-form-urlencoded";
  const form = await new Response(body, { headers: { "content-type": type } }).formData().catch(() => null);
  const value = form?.get(name);
  return typeof value === "string" ? value : null;
}
