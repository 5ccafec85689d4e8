// One session's output as its subscribers' frames: each piece of output is framed once per shape
// (the native dialect's event line, the live cast's bytes; a query-stripped stream is a shape of
// its own) and the same frame goes to every subscriber that stands at its offset. A piece ends
// where its output event ends and at every FRAME_CHUNK boundary, so subscribers that lag from
// different offsets meet on the same frames again after one piece each. The bytes of the event at
// hand are framed as they came; only a subscriber behind that event reads the ring (or the log).
// A frame is kept until each of the other subscribers in its shape has taken it (one subscriber
// alone keeps none), within a bound: a subscriber that left or stands elsewhere leaves frames
// behind that the oldest-first bound lets go of.
import type { OutputFrame, OutputFraming } from "../protocol/output-frame.ts";
import type { AttachedStream } from "../session/stream.ts";

/** The most output one frame holds: a subscriber catching up takes it in pieces this big. */
export const FRAME_CHUNK = 256 * 1024;
/** Output kept framed per shape, for the subscribers that come to it later (a lag shorter than this costs no framing). */
const KEEP_BYTES = 4 * 1024 * 1024;
const KEEP_FRAMES = 4096;

export interface FramedPiece {
  from: number;
  to: number;
  frame: OutputFrame;
}

interface KeptPiece extends FramedPiece {
  /** Subscribers in its shape that have not taken it yet. */
  left: number;
}

/** Output bytes from an offset: `to` is where the next piece starts (a stripped stream's bytes are fewer). */
export type PieceSource = (from: number, max: number) => { to: number; bytes: Uint8Array } | null;

class Kept {
  readonly byFrom = new Map<number, KeptPiece>();
  bytes = 0;
  /** Subscribers whose output takes this shape now. */
  users = 0;

  take(from: number): FramedPiece | undefined {
    const piece = this.byFrom.get(from);
    if (piece && --piece.left <= 0) this.drop(piece);
    return piece;
  }

  private drop(piece: KeptPiece): void {
    this.byFrom.delete(piece.from);
    this.bytes -= piece.to - piece.from;
  }

  add(piece: KeptPiece): void {
    this.byFrom.set(piece.from, piece);
    this.bytes += piece.to - piece.from;
    // The oldest made go first: a subscriber that lags further reads the ring and frames anew.
    for (const old of this.byFrom.values()) {
      if (this.bytes <= KEEP_BYTES && this.byFrom.size <= KEEP_FRAMES) break;
      this.drop(old);
    }
  }
}

const bySession = new WeakMap<AttachedStream, OutputFrames>();

export class OutputFrames {
  /** The shapes some subscriber's output takes now: the last one to leave a shape takes its frames along. */
  private readonly shapes = new Map<string, Kept>();

  private constructor(private readonly session: AttachedStream) {}

  /** The session's frames, shared by its subscribers. */
  static of(session: AttachedStream): OutputFrames {
    let frames = bySession.get(session);
    if (!frames) bySession.set(session, (frames = new OutputFrames(session)));
    return frames;
  }

  /** A subscriber's output takes the shape `key` from now on (null: none, it left), and no longer `was`'s. */
  use(key: string | null, was: string | null): void {
    if (key === was) return;
    if (was !== null) {
      const old = this.shapes.get(was);
      if (old && --old.users <= 0) this.shapes.delete(was);
    }
    if (key === null) return;
    let kept = this.shapes.get(key);
    if (!kept) this.shapes.set(key, (kept = new Kept()));
    kept.users++;
  }

  /**
   * The frame of `framing` (under `key`) that starts at `from`: one made already, or one made now
   * of what `source` gives from there up to the next FRAME_CHUNK boundary. `shared` false: this
   * subscriber's bytes from `from` are its own (a stripped stream still filtering by itself), so
   * its frame is neither taken from nor left for the others.
   */
  piece(key: string, framing: OutputFraming, from: number, source: PieceSource, shared: boolean): FramedPiece | null {
    const kept = shared ? this.shapes.get(key) : undefined;
    const made = kept?.take(from);
    if (made) return made;
    const got = source(from, FRAME_CHUNK - (from % FRAME_CHUNK));
    if (!got) return null;
    const piece = { from, to: got.to, frame: this.frame(framing, from, got.to, got.bytes) };
    if (kept && kept.users > 1) kept.add({ ...piece, left: kept.users - 1 });
    return piece;
  }

  /** `bytes` (the output [from, to), or what stands for it) in `framing`'s shape, stamped now. */
  frame(framing: OutputFraming, from: number, to: number, bytes: Uint8Array): OutputFrame {
    const s = this.session;
    return framing.frame({ session: s.name, session_id: s.id, from, to, bytes, timestamp: new Date().toISOString() });
  }
}
