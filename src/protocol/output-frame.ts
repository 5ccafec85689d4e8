// An output event as it goes on a wire, made once for every subscriber that takes it in that
// shape (daemon/output-frames.ts): a dialect's event line, or the bytes themselves. The same object
// is queued for each of them; nothing is copied or encoded per subscriber.

const decoder = new TextDecoder();

/** One line to send, encoded once: the bytes a socket writes (newline included). */
export class EncodedLine {
  private asText: string | undefined;

  constructor(readonly bytes: Uint8Array) {}

  /** The line without its newline, for a transport that carries text messages (a WebSocket); decoded once. */
  get text(): string {
    return (this.asText ??= decoder.decode(this.bytes.subarray(0, -1)));
  }
}

/** A piece of a session's output, [from, to) counted in its bytes, to be framed. */
export interface OutputPiece {
  session: string;
  session_id: string;
  from: number;
  to: number;
  /** Borrowed for the call (a read's buffer goes back to its pty worker): copy what the frame keeps. */
  bytes: Uint8Array;
  timestamp: string;
}

export type OutputFrame = EncodedLine | Uint8Array;

/** How one kind of subscriber's output events look: the same key, the same frame for the same piece. */
export interface OutputFraming<F extends OutputFrame = OutputFrame> {
  readonly key: string;
  frame(piece: OutputPiece): F;
}

/** The bytes themselves (the live cast, which makes its own events of them). */
export const rawOutput: OutputFraming<Uint8Array> = { key: "raw", frame: (p) => p.bytes.slice() };
