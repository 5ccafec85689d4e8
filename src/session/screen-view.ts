// A session's screen as the daemon's thread sees it: the headless screen lives in a worker, the
// pty worker that reads the program's output for a running session (hostWith), else a screen
// worker (terminal/screen-pool.ts). The pty worker feeds it each read itself while the screen is
// current; otherwise this side feeds it the output from the log, a bounded window at a time. This
// side keeps a mirror of its latest state (rows, cursor, hash), which text reads and waits use
// without a round trip. Snapshots with styles or scrollback are asked of the worker.
//
// Far behind on plain text, it fast-forwards: what would scroll out of the scrollback anyway is
// never sent. A worker that dies is replaced; the screen is rebuilt from the log, its replies to
// queries already answered withheld, and the mirror keeps the old state until it caught up.
import type { ScreenSnapshot, Size } from "../protocol/schemas.ts";
import type { ScreenState } from "../terminal/screen.ts";
import type { ScreenPart, SnapshotFormat } from "../terminal/screen-messages.ts";
import type { PageAsk } from "../terminal/scrollback-page.ts";
import { ScreenReopened, type RemoteScreen, type ScreenOpening, type ScreenOwner } from "../terminal/remote-screen.ts";
import type { ScreenPool } from "../terminal/screen-pool.ts";
import { MIN_SKIP_BYTES, skipPoint } from "../terminal/fast-forward.ts";
import type { OutputLog } from "./output-log.ts";

/** Bytes per message to the worker: small, so another session's echo never waits long behind it. */
const CHUNK_BYTES = 16 * 1024;
/** Bytes sent but not yet parsed, at most: the worker is never idle, and never far ahead of us. */
const WINDOW_BYTES = 32 * 1024;
/**
 * A screen whose program wrote nothing for the pool's parkAfterMs (5 s by default), and whose
 * whole output is at most PARK_MAX_OUTPUT, is parked: its emulator (about 0.2 MB in
 * @xterm/headless) is freed, the mirror keeps serving text reads and waits, and the next output,
 * resize or styled snapshot rebuilds it from the log (a few milliseconds for that much output).
 * An idle shell costs far less that way.
 */
export const PARK_MAX_OUTPUT = 512 * 1024;
/**
 * While a plain-text flood is being fast-forwarded, the screen catches up at most this often:
 * between two skips nothing of the flood is sent, so its worker (and the CPU the flooding program
 * and the other sessions share) is not spent on lines that scroll away unseen. The screen is still
 * current soon after the flood's last byte: this long, plus the parse of what is kept.
 */
const FLOOD_SKIP_EVERY_MS = 50;
/**
 * Plain text arriving at least this fast (bytes per FLOOD_SKIP_EVERY_MS, about 10 MB/s) is a flood
 * even while the screen keeps up with it: a PTY termd reads in bounded slices hands it over in
 * steady 64 KiB pieces, so waiting for a backlog would parse all of it, at the cost of the CPU
 * the flooding program and every other session share.
 */
const FLOOD_RATE_BYTES = 512 * 1024;

export interface ScreenViewOptions {
  size: Size;
  scrollback: number;
  version: string;
  log: OutputLog;
  pool: ScreenPool;
  /** Output below this offset was already answered (a restored session's log): no replies for it. */
  answeredUpTo?: number;
  /** What stands for the output before `end`, so it is never parsed again: a saved screen, or nothing (a log's tail starts there). */
  base?: ScreenBase;
  /** The mirrored screen changed. */
  onChange(): void;
  /** The screen parsed more of the output (for backpressure and "current" waiters). */
  onProgress(): void;
  /** A reply to a terminal query, for the program. */
  onReply(data: string): void;
}

function blank(size: Size): ScreenState {
  return {
    lines: Array.from({ length: size.rows }, () => ""),
    cursor: { row: 0, col: 0, visible: true },
    size,
    alternate: false,
    scrollback_total: 0,
    seq: 0,
    hash: "",
    plainScrolling: true,
    ground: true,
  };
}

/** A screen's starting point other than a blank screen at offset 0. */
export interface ScreenBase {
  /** Bytes that draw the screen as it was at `end` (a serialized screen), or none. */
  bytes: Uint8Array;
  end: number;
}

export class ScreenView {
  /** The screen as of output offset `parsed`. */
  state: ScreenState;
  /** Output parsed by the worker. */
  parsed = 0;
  /** Output handed to the worker. */
  private sent = 0;
  /** Replies for output below this were given by an earlier screen (a rebuild, a restore). */
  private answeredUpTo: number;
  /** Where the next write starts over a cleared screen (a fast-forward found this point). */
  private skipTo: number | null = null;
  private size_: Size;
  /** Opened on first use: a new session's moves to its pty worker first (hostWith), so no screen worker starts for it. */
  private opened: RemoteScreen | null = null;
  private get remote(): RemoteScreen {
    if (this.opened) return this.opened;
    this.posted++; // the open answers with the blank screen's state
    return (this.opened = this.pool.open(this.size_, this.o.scrollback, this.o.version, this.owner));
  }
  private readonly owner: ScreenOwner = {
    onState: (offset, state, fed) => this.onState(offset, state, fed),
    onReply: (data) => this.o.onReply(data),
    onReopened: () => this.onReopened(),
  };
  /** Where the screen is fed as the program's output is read (hostWith): how to start and stop that. */
  private feeder: ((screenId: number | null) => void) | null = null;
  private fedLocally = true;
  private rebuilt: PromiseWithResolvers<void> | null = null;
  private closed = false;
  /** Messages that answer with a state (writes, resizes, the open) posted, and answered. */
  private posted = 0;
  private answered = 0;
  private readonly syncs = new Set<{ end: number; posted: number; wake: () => void }>();
  private parkTimer: Timer | undefined;
  /** performance.now() of the last fast-forward, and the timer that resumes a held flood. */
  private lastSkip = -Infinity;
  private floodTimer: Timer | undefined;
  /** The arrival rate, measured over windows of FLOOD_SKIP_EVERY_MS: where the current one started, and whether the last was a flood. */
  private rateAt = 0;
  private rateFrom = 0;
  private flooding = false;
  /** When a hold by rate began (cleared once it ends); whether a skip found this flood has too few lines. */
  private heldAt: number | null = null;
  private unskippable = false;
  private readonly pool: ScreenPool;
  /**
   * The screen's own change counter: up by one whenever a row, the cursor, the size or the buffer
   * changed. The worker's counter restarts when a screen is rebuilt (unparked, a worker replaced);
   * this one never goes back, so a reader's `since_seq` stays meaningful.
   */
  private seq_ = 0;
  get seq(): number {
    return this.seq_;
  }
  /** For each row, the `seq` at which it last changed (session.screen's since_seq). */
  private rowSeq: number[] = [];

  constructor(private readonly o: ScreenViewOptions) {
    this.size_ = o.size;
    this.state = blank(o.size);
    this.answeredUpTo = o.answeredUpTo ?? 0;
    this.pool = o.pool;
    this.sendBase();
  }

  /**
   * Moves the screen, before it was sent anything, to the thread that reads the program's output
   * (pty/pty-pool.ts), which then feeds it every byte it reads while the screen shows the output up to
   * that byte: no copy of the output comes back through this thread, and an echo crosses two
   * threads instead of four. A plain-text flood is still fed from here, to be fast-forwarded.
   */
  hostWith(open: (opening: ScreenOpening, owner: ScreenOwner) => RemoteScreen, feed: (screenId: number | null) => void): void {
    if (this.sent !== 0 || this.o.base || this.closed) return;
    this.opened?.dispose();
    this.posted = 1; // the open's answer
    this.answered = 0;
    this.opened = open(
      { rows: this.size_.rows, cols: this.size_.cols, scrollback: this.o.scrollback, version: this.o.version },
      this.owner,
    );
    this.feeder = feed;
    feed(this.opened.id);
  }

  /** Output [start, end) that the thread which read it has written into the screen already (hostWith). */
  fedAt(start: number, end: number): void {
    if (this.sent !== start) return;
    this.sent = end;
    this.o.log.keepFor(end);
  }

  /** A fresh screen starts from the base, when there is one, instead of the log's first byte. */
  private sendBase(): void {
    const base = this.o.base;
    if (!base) return;
    this.sent = base.end;
    // A copy of its own: the write hands its buffer over, and the base may be a view of a shared one (a Buffer from a string).
    this.write(new Uint8Array(base.bytes), false);
  }

  get size(): Size {
    return this.size_;
  }

  /**
   * Has the screen parsed every byte the program wrote, and every resize? (Not before the worker
   * first reported: until then the mirror is a blank placeholder, not the screen.)
   */
  get current(): boolean {
    return this.synced(this.o.log.end, this.posted);
  }

  /** Output written but not yet on the screen that a fast-forward cannot skip. */
  get lag(): number {
    const behind = this.o.log.end - this.parsed;
    const skippable = this.o.log.plainFrom <= this.parsed && this.state.plainScrolling;
    return skippable ? 0 : behind;
  }

  /** Output not yet sent to the worker that only the ring holds (the log stopped): what new output would push out unseen. */
  get ringOnly(): number {
    return this.o.log.ringOnly(this.sent);
  }

  /** Measures the arrival rate over windows of FLOOD_SKIP_EVERY_MS: is the output a flood? */
  private sampleRate(): void {
    const log = this.o.log;
    const now = performance.now();
    if (now - this.rateAt < FLOOD_SKIP_EVERY_MS) return;
    const flooding = log.end - this.rateFrom >= FLOOD_RATE_BYTES;
    // A plain-text flood (no other byte since the window began) is fed from here, where it can be
    // fast-forwarded; the reading thread feeds the rest.
    const local = !(flooding && log.plainFrom <= this.rateFrom);
    if (this.feeder && local !== this.fedLocally) this.feeder(local ? this.remote.id : null);
    this.fedLocally = local;
    this.flooding = flooding;
    if (!flooding) this.unskippable = false;
    this.rateAt = now;
    this.rateFrom = log.end;
  }

  /** Sends the worker what it has room for. Called on new output and on every update. */
  pump(): void {
    this.sampleRate();
    const log = this.o.log;
    if (this.remote.parked && this.sent < log.end) this.unpark();
    while (!this.closed && this.sent < log.end && this.sent - this.parsed < WINDOW_BYTES) {
      if (this.holdFlood()) return;
      if (this.fastForward()) continue;
      if (this.skipTo !== null) return; // waiting for what is in flight before clearing
      let max = CHUNK_BYTES;
      // A rebuild's chunks end where answering starts again, so no reply is given twice.
      if (this.sent < this.answeredUpTo) max = Math.min(max, this.answeredUpTo - this.sent);
      const bytes = log.read(this.sent, max);
      if (bytes.length === 0) {
        // Bytes neither the ring nor the file holds (a log that could not be written; the session
        // keeps this from happening, see ringOnly): go on from what is still there rather than
        // wait for them forever. The empty write tells the worker the new offset, so `parsed`
        // moves past the gap too and syncs resolve.
        this.sent = Math.max(this.sent, log.start);
        this.write(bytes, false);
        continue;
      }
      const answer = this.sent >= this.answeredUpTo;
      this.sent += bytes.length;
      this.write(bytes, answer);
    }
  }

  /**
   * A plain-text flood fast-forwarded less than FLOOD_SKIP_EVERY_MS ago: wait for more of it, then
   * skip again. A flood is plain text the screen is far behind on, or that arrives at
   * FLOOD_RATE_BYTES a window (then the first hold starts as the rate is seen), unless a skip over
   * it found too few lines to keep (a flood with no newlines is parsed whole).
   */
  private holdFlood(): boolean {
    const log = this.o.log;
    const now = performance.now();
    if (log.plainFrom > this.sent || !this.state.plainScrolling) return false;
    const byRate = this.flooding && !this.unskippable;
    if (!byRate && log.end - this.sent < MIN_SKIP_BYTES) return false;
    const wait = (byRate ? Math.max(this.lastSkip, (this.heldAt ??= now)) : this.lastSkip) + FLOOD_SKIP_EVERY_MS - now;
    if (wait <= 0) {
      this.heldAt = null;
      return false;
    }
    this.floodTimer ??= setTimeout(() => {
      this.floodTimer = undefined;
      this.pump();
    }, wait);
    return true;
  }

  /**
   * Far behind on plain text: clears the screen and sends only the last rows+scrollback lines.
   * True when it moved `sent` on. It waits for what is in flight first, since that decides
   * whether the screen scrolls plainly (no scroll region).
   */
  private fastForward(): boolean {
    const log = this.o.log;
    if (this.skipTo === null) {
      if (log.end - this.sent < MIN_SKIP_BYTES || log.plainFrom > this.sent) return false;
      const point = skipPoint((from, max) => log.read(from, max), this.sent, log.end, this.size_.rows + this.o.scrollback + 1);
      if (typeof point !== "number") {
        this.unskippable = this.flooding;
        return false;
      }
      this.skipTo = point;
    }
    if (this.sent !== this.parsed) return false;
    const point = this.skipTo;
    this.skipTo = null;
    // Inside a sequence (a chunk can end mid-sequence) the skipped bytes would still change the screen.
    if (!this.state.plainScrolling || !this.state.ground) return false;
    const bytes = log.read(point, CHUNK_BYTES);
    this.sent = point + bytes.length;
    this.write(bytes, this.sent >= this.answeredUpTo, true);
    this.lastSkip = performance.now();
    return true;
  }

  /** Sends the bytes that end at `sent`. */
  private write(bytes: Uint8Array, answer: boolean, clear = false): void {
    this.o.log.keepFor(this.sent);
    this.posted++;
    this.remote.write(bytes, this.sent, answer, clear);
  }

  /**
   * Resolves once the screen shows every byte written and every resize made before the call (the
   * screen a reader expects after its own input's echo), or after `timeoutMs` with what there is.
   */
  sync(timeoutMs = Infinity): Promise<void> {
    const end = this.o.log.end;
    if (this.synced(end, this.posted)) return Promise.resolve();
    return new Promise((resolve) => {
      const entry = { end, posted: this.posted, wake: () => (clearTimeout(timer), this.syncs.delete(entry), resolve()) };
      const timer = Number.isFinite(timeoutMs) ? setTimeout(entry.wake, timeoutMs) : undefined;
      this.syncs.add(entry);
    });
  }

  private synced(end: number, posted: number): boolean {
    return this.closed || (this.parsed >= end && this.answered >= posted && this.rebuilt === null);
  }

  private onState(offset: number, state: ScreenState, fed = false): void {
    this.parsed = offset;
    // Output its worker wrote in itself is counted by offset alone (sync waits for `parsed`).
    if (!fed) this.answered++;
    const rebuilding = this.rebuilt !== null;
    if (rebuilding && offset >= this.answeredUpTo) {
      this.rebuilt!.resolve();
      this.rebuilt = null;
    }
    // Mid-rebuild the screen shows the past: waits must not match on it.
    if (!this.rebuilt) {
      // A resize changes the rows without a write: compare whenever the worker answers.
      const moved = this.track(this.state, state);
      const changed = state.seq !== this.state.seq || rebuilding || moved;
      this.state = state;
      if (changed) this.o.onChange();
    }
    this.pump();
    this.o.onProgress();
    for (const s of this.syncs) if (this.synced(s.end, s.posted)) s.wake();
    this.scheduleParking();
  }

  /** Moves `seq` on and stamps the rows that differ between two mirrored states. */
  private track(old: ScreenState, now: ScreenState): boolean {
    const whole = old.size.rows !== now.size.rows || old.size.cols !== now.size.cols || old.alternate !== now.alternate;
    const rows: number[] = [];
    for (let i = 0; i < now.lines.length; i++) if (whole || old.lines[i] !== now.lines[i]) rows.push(i);
    const c = old.cursor;
    const moved = c.row !== now.cursor.row || c.col !== now.cursor.col || c.visible !== now.cursor.visible;
    if (rows.length === 0 && !moved) return false;
    this.seq_++;
    this.rowSeq.length = now.lines.length;
    for (const i of rows) this.rowSeq[i] = this.seq_;
    return true;
  }

  /**
   * The rows changed since `since` (a `seq` this view handed out), with their indexes. A `since`
   * this view never reached (from an earlier daemon) gets every row, with `full` set.
   */
  changesSince(since: number): { changed: { row: number; text: string }[]; full: boolean } {
    const full = since > this.seq_;
    const changed: { row: number; text: string }[] = [];
    this.state.lines.forEach((text, row) => {
      if (full || (this.rowSeq[row] ?? 0) > since) changed.push({ row, text });
    });
    return { changed, full };
  }

  private scheduleParking(): void {
    clearTimeout(this.parkTimer);
    const after = this.pool.parkAfterMs;
    if (this.closed || after <= 0 || this.o.log.end > PARK_MAX_OUTPUT) return;
    this.parkTimer = setTimeout(() => {
      const idle = this.sent === this.parsed && this.current && this.rebuilt === null && this.syncs.size === 0;
      if (idle) this.remote.park();
    }, after);
    this.parkTimer.unref();
  }

  /** Opens the parked screen again and replays the whole output into it at once (it is small). */
  private unpark(): void {
    this.remote.unpark();
    this.restart();
    // All of it now, not a window at a time: a resize that follows must come after it.
    while (this.sent < this.answeredUpTo) {
      const bytes = this.o.log.read(this.sent, Math.min(CHUNK_BYTES, this.answeredUpTo - this.sent));
      if (bytes.length === 0) break;
      this.sent += bytes.length;
      this.write(bytes, false);
    }
  }

  private onReopened(): void {
    this.restart();
    this.pump();
  }

  /** The worker's screen is blank again (just opened): everything it showed is to be sent anew. */
  private restart(): void {
    this.answeredUpTo = Math.max(this.answeredUpTo, this.sent);
    this.sent = 0;
    this.parsed = 0;
    this.posted = 1;
    this.answered = 0;
    this.skipTo = null;
    if (this.answeredUpTo > 0) this.rebuilt ??= Promise.withResolvers<void>();
    this.sendBase();
  }

  resize(size: Size): void {
    if (this.remote.parked) this.unpark();
    this.size_ = size;
    this.posted++;
    this.remote.resize(size);
  }

  /** The mirrored rows as a text snapshot (the session adds title, cwd, modes, offset). */
  text(): ScreenPart {
    const s = this.state;
    return {
      lines: s.lines,
      scrollback_lines: 0,
      scrollback_total: s.scrollback_total,
      scrollback_end: 0,
      cursor: s.cursor,
      size: s.size,
      alternate: s.alternate,
      seq: this.seq_,
      hash: s.hash,
    };
  }

  /** A snapshot from the worker, of every byte sent so far; `offset` is the output it reflects. */
  async snapshot(format: SnapshotFormat, scrollback: number, page: PageAsk = {}): Promise<ScreenPart & Pick<ScreenSnapshot, "offset">> {
    for (;;) {
      if (this.remote.parked) this.unpark();
      await this.rebuilt?.promise;
      const offset = this.sent;
      try {
        return { ...(await this.remote.snapshot(format, scrollback, page)), seq: this.seq_, offset };
      } catch (err) {
        if (!(err instanceof ScreenReopened)) throw err;
      }
    }
  }

  dispose(): void {
    this.closed = true;
    clearTimeout(this.parkTimer);
    clearTimeout(this.floodTimer);
    this.opened?.dispose();
    this.rebuilt?.resolve();
    for (const s of this.syncs) s.wake();
  }
}
