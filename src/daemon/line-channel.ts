// One client's byte stream as lines: NDJSON framing in, replies and events out through a queue that
// respects the transport's backpressure. The Unix socket and the WebSocket both carry one. Lines
// are handled in order, in the channel's turns (turns.ts), while the client keeps up: a client
// that stops reading holds up its own requests, one that sends faster than its turns take them
// is not read until they catch up, and the memory either costs stays bounded. A client that ends
// its sending side still gets a reply to every request it sent, then the close. An oversized
// line gets an error reply and the channel is closed; nothing here can take down the daemon or
// another client.
import type { ByteSink } from "../protocol/byte-sink.ts";
import { RpcError } from "../protocol/errors.ts";
import { EncodedLine } from "../protocol/output-frame.ts";
import { LineSplitter, MAX_LINE_BYTES, type Frame, type LongLines } from "../protocol/framing.ts";
import { errorReply } from "./errors.ts";
import type { LineParsed, OffThreadLine } from "./line-parser.ts";
import { settledOrNextTurn } from "./pacing.ts";
import { TURN_REQUESTS, turns, type TurnTaker } from "./turns.ts";

/** Queue size past which output events wait for the transport to drain. */
export const HIGH_WATER = 4 * 1024 * 1024;
/**
 * Reply bytes a client may leave unread before its next requests wait for it to read: a 100-byte
 * session.output request can cost an 11 MB reply, so without a bound a client that pipelines them
 * and never reads grows the daemon without end.
 */
export const MAX_UNREAD = 16 * 1024 * 1024;
/**
 * Bytes of received requests waiting for their turns past which the transport is not read until
 * they are under half of it: a client that pipelines faster than its turns go waits in its own
 * socket (the kernel's backpressure), not in the daemon's memory.
 */
export const MAX_HELD = 1024 * 1024;

/** What the channel hands its lines to, and tells of room and of its close. */
export interface LineHandler {
  /** One line, parsed (or why it could not be); resolves once its reply is queued. */
  line(parsed: LineParsed): Promise<unknown>;
  /** The transport took what it could of the queue: held events may go if there is room. */
  drained(): void;
  /** The channel closed: by the client, the transport, or end(). Told once. */
  closed(): void;
}

/** Byte counts the daemon keeps over every channel (system.stats, metrics). */
export interface ByteCounters {
  bytesIn: number;
  bytesOut: number;
}

/** A line received: parsed when its turn comes, or (a long one) in the parser's worker, `parsed` once it is. */
type HeldFrame =
  | Exclude<Frame<OffThreadLine>, { tooLong: number } | { long: OffThreadLine }>
  | { long: OffThreadLine; parsed?: LineParsed };

const frameSize = (frame: HeldFrame): number => ("line" in frame ? frame.line.length : "long" in frame ? frame.long.bytes : 1);

/** A line parsed here, on the daemon's thread (a short one: big ones go to line-parser.ts). */
function parseFrame(frame: { line: string } | { invalidUtf8: true }): LineParsed {
  if ("invalidUtf8" in frame) return { malformed: "request line is not valid UTF-8" };
  try {
    return { msg: JSON.parse(frame.line) };
  } catch (err) {
    return { malformed: `invalid JSON: ${(err as Error).message}` };
  }
}

export class LineChannel implements TurnTaker {
  private readonly splitter: LineSplitter<OffThreadLine>;
  private readonly encoder = new TextEncoder();
  /** An EncodedLine is an output event shared with other subscribers' queues: queued as it is, never copied. */
  private readonly queue: (Uint8Array | EncodedLine)[] = [];
  private queued = 0;
  private isClosed = false;
  /** end() was called: nothing more is read or queued; the close follows the last queued byte. */
  private ending = false;
  /** Lines received and not handled yet: they wait while the client is behind on its replies. */
  /** Lines received, in order; a slot is emptied once its line has run, so a big line is not kept while its client sends more. */
  private held: (HeldFrame | undefined)[] = [];
  private heldAt = 0;
  private heldChars = 0;
  /** The transport is paused: MAX_HELD bytes of requests wait for their turns. */
  private paused = false;
  /** Lines handled whose replies are not queued yet (a session.wait under way). */
  private unanswered = 0;
  /** The client ended its sending side: once every line it sent is answered, the channel ends. */
  private inputEnded = false;
  /** A turn is under way (the scheduler's, or the one a fresh line gets on arrival). */
  private inTurn = false;
  /** last() was called: nothing more is read, run or queued, and the channel stays open (the daemon's image going closes it). */
  private finished = false;
  /** Resolved once the queue is empty (written()). */
  private writtenWaiters: (() => void)[] = [];

  constructor(
    private readonly sink: ByteSink,
    private readonly handler: LineHandler,
    private readonly counters: ByteCounters,
    /** Where its long lines are parsed (the daemon's LineParser's offThread). */
    longLines: LongLines<OffThreadLine>,
  ) {
    this.splitter = new LineSplitter(MAX_LINE_BYTES, longLines);
  }

  /** Open, and its queue below HIGH_WATER: output may be queued now. */
  get writable(): boolean {
    return !this.isClosed && this.queued < HIGH_WATER;
  }

  onData(chunk: Uint8Array): void {
    // socket.end() only half-closes: what the client sent before it saw the close may still
    // arrive, and none of it may run (a request after an oversized line must not take effect).
    if (this.isClosed || this.ending || this.finished || this.inputEnded) return;
    this.counters.bytesIn += chunk.length;
    const idle = this.heldAt === this.held.length && !this.inTurn;
    for (const frame of this.splitter.push(chunk)) {
      if ("tooLong" in frame) return this.refuse(`request line over ${this.splitter.maxBytes} bytes; closing`);
      if ("line" in frame && frame.line.trim() === "") continue;
      this.held.push(frame);
      this.heldChars += frameSize(frame);
      // A long line's turn can come once the worker has parsed it.
      if ("long" in frame) {
        const held: { long: OffThreadLine; parsed?: LineParsed } = frame;
        void frame.long.parsed.then((parsed) => {
          held.parsed = parsed;
          this.ready();
        });
      }
    }
    // Requests waiting for a client that does not read are bounded like one line: past that it is cut off.
    if (this.heldChars > MAX_LINE_BYTES && this.queued >= MAX_UNREAD) {
      return this.refuse(`over ${MAX_LINE_BYTES} bytes of requests wait for replies to be read; closing`);
    }
    if (this.heldChars >= MAX_HELD && !this.paused && this.sink.pause) {
      this.paused = true;
      this.sink.pause();
    }
    // A client with nothing waiting has its first line run now, as it arrives (a request sent just
    // before the client went away still runs); the rest take turns.
    if (idle && this.runnable) void this.turn(performance.now()).then((more) => more && this.ready());
    else this.ready();
  }

  /**
   * The client ended its sending side (a half-close): what it sent is still answered, every line
   * of it, and then the channel ends. A line it did not finish with a newline is not one.
   */
  inputEnd(): void {
    if (this.isClosed || this.inputEnded) return;
    this.inputEnded = true;
    this.splitter.reset();
    this.ready();
  }

  private refuse(message: string): void {
    this.send(errorReply(null, new RpcError("PAYLOAD_TOO_LARGE", message)));
    this.end();
  }

  /** The next held line may run now: there is one, parsed, and the client is not behind on its replies. */
  private get runnable(): boolean {
    const head = this.held[this.heldAt];
    return (
      !this.isClosed &&
      !this.ending &&
      !this.finished &&
      head !== undefined &&
      this.queued < MAX_UNREAD &&
      !("long" in head && head.parsed === undefined)
    );
  }

  /** Held lines may run now: the channel asks for a turn (or, with none left, ends if its client did). */
  private ready(): void {
    if (this.runnable) turns.want(this);
    else if (this.inputEnded && this.heldAt === this.held.length && this.unanswered === 0 && !this.inTurn) this.end();
  }

  /**
   * One turn: held lines in order, at most TURN_REQUESTS of them or until `deadline`, while the
   * client keeps up: with MAX_UNREAD bytes queued, the rest wait until it reads. Each line's reply
   * is queued before the next line runs (a long call such as session.wait gets one turn of the
   * event loop, then goes on alongside the next ones), so the queue is checked against what the
   * requests before actually produced. A long line not parsed yet ends the turn: its parse asks
   * for the next one. A turn given while one is under way (the one a fresh line got on arrival)
   * is declined, not taken back into line to come round again and again until that one ends: the
   * turn under way asks for the next if lines are left, those that became runnable meanwhile too.
   */
  async turn(deadline: number): Promise<boolean> {
    if (this.inTurn) return false;
    this.inTurn = true;
    let more: boolean;
    try {
      more = (await this.takeLines(deadline)) || this.runnable;
    } finally {
      this.inTurn = false;
    }
    // A client that ended its sending side may have had its last line answered in this turn.
    if (!more && this.inputEnded) this.ready();
    return more;
  }

  private async takeLines(deadline: number): Promise<boolean> {
    for (let n = 0; n < TURN_REQUESTS && (n === 0 || performance.now() < deadline); n++) {
      if (this.isClosed || this.ending || this.finished || this.queued >= MAX_UNREAD) return false;
      const frame = this.held[this.heldAt];
      if (frame === undefined) break;
      let parsed: LineParsed;
      if ("long" in frame) {
        if (frame.parsed === undefined) return false;
        parsed = frame.parsed;
      } else parsed = parseFrame(frame);
      this.held[this.heldAt++] = undefined;
      this.heldChars -= frameSize(frame);
      this.unanswered++;
      const done = this.handler.line(parsed);
      const answered = () => {
        this.unanswered--;
        if (this.inputEnded) this.ready();
      };
      done.then(answered, answered);
      // Only a line with more behind it waits; a lone one goes its way as before.
      if (this.heldAt < this.held.length) await settledOrNextTurn(done);
    }
    if (this.heldAt === this.held.length) {
      this.held = [];
      this.heldAt = 0;
    }
    if (this.paused && this.heldChars < MAX_HELD / 2) {
      this.paused = false;
      this.sink.resume?.();
    }
    return this.heldAt < this.held.length;
  }

  send(msg: unknown): void {
    this.sendLine(JSON.stringify(msg));
  }

  sendLine(json: string): void {
    if (this.isClosed || this.ending || this.finished) return;
    const line = this.encoder.encode(json + "\n");
    this.queue.push(line);
    this.queued += line.length;
    this.flush();
  }

  /** An output event framed once for every subscriber at its offset (output-frames.ts). */
  sendFrame(line: EncodedLine): void {
    if (this.isClosed || this.ending || this.finished) return;
    this.queue.push(line);
    this.queued += line.bytes.length;
    this.flush();
  }

  /** Writes as much of the queue as the transport takes; the rest waits for its drain. */
  flush(): void {
    while (this.queue.length > 0 && !this.isClosed) {
      const head = this.queue[0]!;
      const bytes = head instanceof EncodedLine ? head.bytes : head;
      const n = head instanceof EncodedLine && this.sink.writeLine ? this.sink.writeLine(head) : this.sink.write(bytes);
      if (n < 0) return this.close();
      this.queued -= n;
      this.counters.bytesOut += n;
      if (n < bytes.length) {
        if (n > 0) this.queue[0] = bytes.subarray(n);
        return;
      }
      this.queue.shift();
    }
    if (this.queue.length === 0) this.wroteAll();
    if (this.ending) {
      if (this.queue.length === 0 && !this.isClosed) {
        this.sink.end();
        this.close();
      }
      return;
    }
    if (this.queued < MAX_UNREAD) this.ready();
    this.handler.drained();
  }

  /**
   * Ends the channel after what is queued has been written: a reply larger than the transport
   * takes at once (an interminai screen with its scrollback) goes out whole before the close.
   */
  end(): void {
    if (this.isClosed) return;
    this.ending = true;
    this.flush(); // closes now if all is written, else on the drain that writes the last byte
  }

  /**
   * `msg` (if any) is the last line queued: nothing more is read, run or queued after it, and the
   * channel is left open for what ends the daemon's image (an exec) to close, so that its client
   * takes it for the end of this daemon, not of the connection alone (termd/client connects again
   * once it is closed). written() tells when it has gone out.
   */
  last(msg?: unknown): void {
    if (msg !== undefined) this.send(msg);
    this.finished = true;
  }

  /** Resolves once everything queued has been handed to the transport, or the channel closed. */
  written(): Promise<void> {
    if (this.isClosed || this.queue.length === 0) return Promise.resolve();
    const { promise, resolve } = Promise.withResolvers<void>();
    this.writtenWaiters.push(resolve);
    return promise;
  }

  private wroteAll(): void {
    for (const resolve of this.writtenWaiters.splice(0)) resolve();
  }

  /** Closed at once, whatever is queued (the transport went away). */
  close(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.wroteAll();
    this.queue.length = 0;
    this.queued = 0;
    this.held = [];
    this.heldAt = 0;
    this.splitter.reset(); // a line half read: its pieces in the parser's worker are let go
    this.handler.closed();
  }
}
