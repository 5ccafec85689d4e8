// A failed HTTP request as data: its status and a code and message for the JSON error body
// (http-server.ts's errorResponse is the one place it becomes a response).
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Extra response headers (Retry-After, WWW-Authenticate). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}
