// Where a connection's bytes go: a Unix socket, or a WebSocket through src/web's adapter. The
// daemon's line channel writes to one; the HTTP transport makes one. Both sides take it from here.
import type { EncodedLine } from "./output-frame.ts";

export interface ByteSink {
  /** Takes what it can of `data` now and says how much (-1: closed); the rest waits for flush(). */
  write(data: Uint8Array): number;
  /** A whole line at once (an output event made once for every subscriber), as its text if the transport carries text messages: its length, 0 (no room yet) or -1 (closed). */
  writeLine?(line: EncodedLine): number;
  end(): void;
  /** Stops reading the client's messages, so that its requests wait in the transport for their turns; resume() reads again. */
  pause?(): void;
  resume?(): void;
}
