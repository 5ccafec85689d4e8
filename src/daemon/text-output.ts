// Output as plain text (terminal/plain-text.ts) for a subscriber that wants lines, not bytes
// (ralph's output events). The text is the vt tap's, made during its one parse of the live
// stream and queued here while the subscriber's sink is full. A subscriber further behind than
// MAX_QUEUED_TEXT, or reading output from before it subscribed, gets the text of those older
// bytes by parsing them here; a sequence cut by where that starts may show in it as text.
import type { OutputStream } from "../session/stream.ts";
import { PlainText } from "../terminal/plain-text.ts";

/** Characters of the tap's text queued for one subscriber before it is dropped for the fallback. */
export const MAX_QUEUED_TEXT = 1024 * 1024;

interface Piece {
  from: number;
  to: number;
  text: string;
}

export class TextOutput {
  private readonly release: () => void;
  private queue: Piece[] = [];
  private queued = 0;
  private fallback: PlainText | null = null;

  constructor(private readonly session: OutputStream) {
    this.release = session.tap.wantText();
  }

  /** The tap's text of a chunk: kept when it goes on from what this subscriber gets next. */
  take(piece: Piece, sent: number): void {
    if (piece.from !== (this.queue.at(-1)?.to ?? sent)) return;
    if (this.queued + piece.text.length > MAX_QUEUED_TEXT) {
      this.queue = [];
      this.queued = 0;
      return;
    }
    this.queue.push(piece);
    this.queued += piece.text.length;
  }

  /** The text of the output [sent, end) (about `max` of it): `to` is where the next call goes on. */
  next(sent: number, end: number, max: number): { to: number; text: string } | null {
    while (this.queue.length > 0 && this.queue[0]!.from < sent) this.queued -= this.queue.shift()!.text.length;
    let head = this.queue[0];
    if (head?.from === sent) {
      // The tap's own text state goes on from here: whatever the fallback held is in it too.
      this.fallback = null;
      let text = "";
      let to = sent;
      for (; head?.from === to && text.length < max; head = this.queue[0]) {
        this.queue.shift();
        this.queued -= head.text.length;
        text += head.text;
        to = head.to;
      }
      return { to, text };
    }
    const limit = head?.from ?? end;
    if (sent >= limit) return null;
    const bytes = this.session.readOutput(sent, Math.min(max, limit - sent));
    if (bytes.length === 0) return null;
    return { to: sent + bytes.length, text: (this.fallback ??= new PlainText()).push(bytes) };
  }

  dispose(): void {
    this.release();
    this.queue = [];
  }
}
