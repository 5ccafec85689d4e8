// One session's output stream and its flow control: the program's bytes go tap → log → screen.
// The vt tap reads the live stream first (modes, title, cwd, marks, bells, unhandled sequences),
// in the pty worker that read them: each read comes with what the tap found in it, which this
// side's TapFacts takes before anything else sees the bytes; the log keeps every byte
// (output-log.ts; the pty worker wrote them to its file already); the screen parses them in a
// worker (screen-view.ts).
// A screen that falls more than MAX_SCREEN_LAG behind stops the program's output until it catches
// up, so no byte is dropped and nothing grows without bound. A restored stream (its daemon is
// gone) has no program: its output comes from the log and its screen is rebuilt from it.
import { closeSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import type { Modes, ScreenSnapshot, Size } from "../protocol/schemas.ts";
import { VERSION } from "../protocol/version.ts";
import { faultText, TermdError } from "../terminal/errors.ts";
import { MAX_PAGE_BODY } from "../protocol/framing.ts";
import type { ScreenPart, SnapshotFormat } from "../terminal/screen-messages.ts";
import { jsonBytes, type PageAsk } from "../terminal/scrollback-page.ts";
import type { ScreenPool } from "../terminal/screen-pool.ts";
import { DEFAULT_DEBUG_BUFFER, TapFacts, type TapState } from "../terminal/tap-facts.ts";
import { VtTap } from "../terminal/vt-tap.ts";
import { clientLog } from "./client-log.ts";
import { writeError } from "../pty/disk-errors.ts";
import type { OutputRead, OutputSetup } from "../pty/pty-messages.ts";
import { OutputLog } from "./output-log.ts";
import { ScreenView, type ScreenBase } from "./screen-view.ts";
import { removedError } from "./session-errors.ts";
import type { OutputStream, SessionEvent } from "./stream.ts";

/**
 * Unparsed output a screen may fall behind its program before the program's output is stopped.
 * Plain text that fast-forward skips does not count. The screen parses coloured full-screen
 * redraws at ~35 MB/s here, so that much is about 30 ms of parsing.
 */
export const MAX_SCREEN_LAG = 1024 * 1024;
/**
 * The bound that follows, as scripts/bench/redraw.ts measures it end to end: a screen shows the
 * program's last byte within this long (the lag's parse, a held flood's 50 ms, the messages).
 */
export const SCREEN_CURRENT_MS = 250;
/** The output goes on once the screen is this close again. */
const RESUME_LAG = 256 * 1024;
/** Whatever the text: this far behind, stop. A newline-free flood is never fast-forwarded. */
const HARD_LAG = 32 * 1024 * 1024;
/**
 * Once the log stopped (a full disk), output the screen has not yet been sent exists only in the
 * ring (RING_BYTES, 1 MiB): past this much the output stops, so the screen still gets every byte
 * (what arrives after an XOFF, up to pty/pty.ts's REPAUSE_BYTES, fits in the rest); it goes on below
 * RING_ONLY_RESUME.
 */
const RING_ONLY_LAG = 384 * 1024;
const RING_ONLY_RESUME = 128 * 1024;

/** How long a snapshot waits for the screen to show the output so far; past it, what there is. */
const SNAPSHOT_SYNC_MS = 2000;
/** How long a program's end waits for its screen to show every byte before it is reported anyway. */
const EXIT_SYNC_MS = 15_000;

/** A lost session (its daemon died mid-run, no saved screen) is rebuilt from at most this much of its log's end. */
const LOST_TAIL_BYTES = 4 * 1024 * 1024;

/** An ended session's final screen, serialized, beside its log: a restart never re-parses history. */
export function screenPathOf(logPath: string): string {
  return logPath.replace(/\.log$/, ".screen");
}

/** What writes the stream: the program's terminal, which can stop and resume its output and takes the screen's replies. */
export interface StreamSource {
  readonly outputPaused: boolean;
  pauseOutput(): void;
  resumeOutput(): void;
  write(data: string): unknown;
  /** The tap that reads the output makes its plain text from now on, or stops. */
  wantText(on: boolean): void;
}

export interface PipelineOptions {
  /** Whose stream it is, named as it is now (a rename shows in the messages here). */
  owner: { readonly name: string };
  logPath: string;
  size: Size;
  scrollback: number;
  /** Size of the unhandled-sequence log (default DEFAULT_DEBUG_BUFFER). */
  debugBuffer?: number;
  /** The daemon's screen workers. */
  pool: ScreenPool;
  /** A stream an earlier daemon wrote; `lost`: its program was running when that daemon died. */
  restored?: { lost: boolean };
}

/**
 * Where a restored session's screen starts: its saved final screen when that matches the log;
 * else, for a lost one, the start of the last rows+scrollback lines of the log (no further back
 * than LOST_TAIL_BYTES), since nothing older can show; else the log's first byte.
 */
function restoredBase(output: OutputLog, lost: boolean, rows: number, scrollback: number): ScreenBase | undefined {
  try {
    const saved = readFileSync(screenPathOf(output.path), "utf8");
    const nl = saved.indexOf("\n");
    if (Number(saved.slice(0, nl)) === output.end) return { bytes: Buffer.from(saved.slice(nl + 1)), end: output.end };
  } catch {}
  if (!lost) return undefined;
  const from = Math.max(0, output.end - LOST_TAIL_BYTES);
  const tail = output.read(from, output.end - from);
  let lines = 0;
  for (let i = tail.length - 1; i >= 0; i--) {
    if (tail[i] === 0x0a && ++lines > rows + scrollback) return { bytes: new Uint8Array(0), end: from + i + 1 };
  }
  return from > 0 ? { bytes: new Uint8Array(0), end: from } : undefined;
}

/**
 * The stream as its owner (session.ts) runs it: it starts and ends the program's runs (runSetup,
 * attach, ended), tells the owner's events with its own (emit), records input and resizes, and
 * disposes of it. Everything else is OutputStream's, for its readers.
 */
export class Pipeline implements OutputStream {
  private readonly owner: { readonly name: string };
  readonly scrollback: number;
  readonly output: OutputLog;
  /** What the vt tap read so far, as its updates (one per read) tell it. */
  readonly tap: TapFacts;
  readonly view: ScreenView;
  /**
   * Where the next program's tap goes on from, once a run ended (the worker's tap's own state) or
   * for a restored stream (the tap that read its log's tail); null: from the facts here.
   */
  private tapState: TapState | null = null;
  private activity = performance.now();
  private inputAt = 0;
  /** What writes the stream now; null before a program starts, and for a restored stream. */
  private source: StreamSource | null = null;
  /**
   * The run's log_path copy (pty/tee.ts), which its pty worker writes: closed here once the copy
   * failed or the run ended (not before: the worker may still write to the number).
   */
  private tee: number | null = null;
  /** Closed (its session removed): a call still running on it answers SESSION_NOT_FOUND. */
  private closed_ = false;
  private readonly listeners = new Set<(e: SessionEvent) => void>();
  private readonly disposers: (() => void)[] = [];

  constructor(o: PipelineOptions) {
    this.owner = o.owner;
    this.scrollback = o.scrollback;
    this.output = new OutputLog(o.logPath, o.owner.name);
    const debugBuffer = o.debugBuffer ?? DEFAULT_DEBUG_BUFFER;
    this.tap = new TapFacts({ debugBuffer, onTextWanted: (on) => this.source?.wantText(on) });
    // Restored: a tap here reads the last megabyte once (no program writes this stream), so a
    // lost session still shows its last title, directory and modes, and a restart goes on from
    // them; the screen replays all of it, answering nothing.
    let base: ScreenBase | undefined;
    if (o.restored) {
      const tail = this.output.restore();
      const tap = new VtTap({ debugBuffer });
      this.tap.take(tap.feed(tail, this.output.end - tail.length));
      this.tapState = tap.save();
      base = restoredBase(this.output, o.restored.lost, o.size.rows, o.scrollback);
    }
    this.view = new ScreenView({
      size: o.size,
      scrollback: o.scrollback,
      version: `termd(${VERSION})`,
      log: this.output,
      pool: o.pool,
      answeredUpTo: this.output.end,
      base,
      onChange: () => {
        this.activity = performance.now();
        this.emit({ type: "screen", seq: this.view.seq });
      },
      onProgress: () => this.onScreenProgress(),
      // A reply parsed after the PTY closed (a query in the last output) has nowhere to go.
      onReply: (reply) => {
        try {
          this.source?.write(reply);
        } catch {}
      },
    });
  }

  get name(): string {
    return this.owner.name;
  }

  get lastActivity(): number {
    return this.activity;
  }

  get inputOffset(): number {
    return this.inputAt;
  }

  get closed(): boolean {
    return this.closed_;
  }

  get logPath(): string {
    return this.output.path;
  }

  get size(): Size {
    return this.view.size;
  }

  get screenCurrent(): boolean {
    return this.view.current;
  }

  /** The modes as of the last output byte (the screen may still be parsing up to it). */
  get modes(): Modes {
    return this.tap.modes;
  }

  on(fn: (e: SessionEvent) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Tells every listener of `e`: the stream's own events and its owner's (state, input, hold). */
  emit(e: SessionEvent): void {
    for (const fn of this.listeners) {
      try {
        fn(e);
      } catch (err) {
        console.error(`termd: session ${this.name} listener failed: ${faultText(err)}`);
      }
    }
  }

  /**
   * Opens the log for a run (SPAWN_FAILED when it cannot) and says what the run's pty worker needs
   * of the stream: the offset it goes on from, `prelude` ahead of the program's output, where its
   * reads go, and its vt tap, which goes on as the last one ended, or as the facts here stand
   * (that one's worker died), with the unhandled log's size and whether text is wanted.
   */
  runSetup(prelude?: Uint8Array): OutputSetup & { onData(read: OutputRead): void } {
    let log: string | null;
    try {
      log = this.output.create();
    } catch (err) {
      throw new TermdError("SPAWN_FAILED", `cannot open session ${this.name}'s log: ${writeError(err, this.logPath)}`);
    }
    const tap = this.tapState?.end === this.output.end ? this.tapState : this.tap.save();
    const { debugBuffer, wantsText: text } = this.tap;
    return { at: this.output.end, log, prelude, tap, debugBuffer, text, onData: (read) => this.feed(read) };
  }

  /**
   * The program's bytes, in order: what the tap read in them first, so modes and title are
   * current before anyone reads the bytes, and its events once the bytes are in the ring. The thread that read them has logged them (`logFailed`:
   * only up to its `end`), run the tap over them and, when `fed`, put them on the screen.
   */
  feed({ data, tap, nonPlain, fed, logFailed, teeFailed }: OutputRead): void {
    // Removed: what its program still wrote (its log is gone too) goes nowhere.
    if (this.closed_) return;
    if (teeFailed !== undefined) {
      clientLog.log(`termd: session ${this.name}: log_path write failed, copy stopped: ${teeFailed}`);
      this.closeTee();
    }
    this.tap.take(tap);
    const from = this.output.end;
    this.output.append(data, nonPlain, logFailed);
    // Told once the bytes are in the ring: a mark's listener reads the output up to it (exec.run's
    // command in a shell whose DEBUG trap is the user's), which may be in this very read.
    for (const e of tap.events) this.emit(e);
    if (fed) this.view.fedAt(from, this.output.end);
    this.activity = performance.now();
    this.emit({ type: "output", from, to: this.output.end, data });
    this.view.pump();
    const lag = this.view.lag;
    if (lag > MAX_SCREEN_LAG || this.output.end - this.view.parsed > HARD_LAG || this.view.ringOnly > RING_ONLY_LAG)
      this.source?.pauseOutput();
  }

  private onScreenProgress(): void {
    const caughtUp =
      this.view.lag <= RESUME_LAG && this.output.end - this.view.parsed <= HARD_LAG / 2 && this.view.ringOnly <= RING_ONLY_RESUME;
    if (this.source?.outputPaused && caughtUp) this.source.resumeOutput();
  }

  /** A program's run writes the stream from now on; `tee`: its log_path copy, closed here once the run ended. */
  attach(source: StreamSource, tee: number | null): void {
    this.source = source;
    this.tee = tee;
  }

  /**
   * Input counts as activity (the program is about to answer it): "settled" restarts here, and a
   * command typed now finishes after the output so far.
   */
  noteInput(): void {
    this.activity = performance.now();
    this.inputAt = this.output.end;
  }

  /**
   * A new size, told as activity; the same one changes nothing. The screen takes it first, then
   * the program's `terminal`: where the screen lives in the pty worker, the program's redraw for
   * the new size (after SIGWINCH) must find it resized already.
   */
  resize(size: Size, terminal: () => void): void {
    if (size.rows === this.size.rows && size.cols === this.size.cols) return;
    this.view.resize(size);
    terminal();
    this.activity = performance.now();
    this.emit({ type: "resize", size });
  }

  /**
   * The run ended: its copy closes (its worker has written the last read), the next run's tap goes
   * on from `tap`, and the screen catches up before the end is told: "ended" promises a final
   * screen that shows every byte. A screen that never catches up (a stalled worker) must not hold
   * the end back for good: after EXIT_SYNC_MS it is told with the screen as it is, and the daemon
   * log says so.
   */
  async ended(tap: TapState | undefined): Promise<void> {
    this.closeTee();
    const started = performance.now();
    await this.view.sync(EXIT_SYNC_MS);
    if (performance.now() - started >= EXIT_SYNC_MS)
      console.error(
        `termd: session ${this.name}: its screen had not caught up ${EXIT_SYNC_MS / 1000} s after its program ended; the end is told without it`,
      );
    this.tapState = tap ?? null;
  }

  /** Bytes [from, from+max) of the output, from the ring or the log. */
  readOutput(from: number, max: number): Uint8Array {
    return this.output.read(from, max);
  }

  /** The screen as text, from the mirror: no round trip to the worker. */
  textSnapshot(): ScreenSnapshot {
    return this.withTap(this.view.text(), this.view.parsed);
  }

  /**
   * The screen in any format, showing at least the output and resizes so far (waiting up to
   * SNAPSHOT_SYNC_MS for the worker); from the worker when it needs styles or scrollback. Its
   * scrollback is the newest of the page asked that fit MAX_PAGE_BODY with the rest of the reply.
   */
  async snapshot(format: SnapshotFormat = "text", scrollback = 0, page: Omit<PageAsk, "budget"> = {}): Promise<ScreenSnapshot> {
    await this.view.sync(SNAPSHOT_SYNC_MS);
    this.assertOpen();
    if (format === "text" && scrollback === 0 && !page.end) return this.textSnapshot();
    // What the worker does not measure: the tap's fields (a title may be a long OSC string).
    const budget = MAX_PAGE_BODY - jsonBytes(this.withTap({} as ScreenPart, Number.MAX_SAFE_INTEGER));
    try {
      const { offset, ...part } = await this.view.snapshot(format, scrollback, { ...page, budget });
      return this.withTap(part, offset);
    } catch (err) {
      // Removed while the worker drew it: the screen it asked is closed.
      this.assertOpen();
      throw err;
    }
  }

  /** The rows changed since `since` (a snapshot's `seq`), from the mirror, once the screen shows the output so far. */
  async changesSince(since: number): Promise<ScreenSnapshot> {
    await this.view.sync(SNAPSHOT_SYNC_MS);
    this.assertOpen();
    const { changed, full } = this.view.changesSince(since);
    return { ...this.textSnapshot(), lines: [], changed, ...(full ? { full } : {}) };
  }

  private withTap(part: ReturnType<ScreenView["text"]>, offset: number): ScreenSnapshot {
    return { ...part, title: this.tap.title, current_cwd: this.tap.cwd, modes: this.tap.modes, offset };
  }

  /** A call that waited (for the screen, for a worker) while another client removed the session. */
  private assertOpen(): void {
    if (this.closed_) throw removedError(this.name);
  }

  /** Keeps the final screen beside the log (restoredBase); a stream that cannot is rebuilt from its log. */
  async saveScreen(): Promise<void> {
    try {
      const { ansi } = await this.view.snapshot("ansi", this.scrollback);
      // Off the thread: a shutdown saves every session's screen at once (2.5 ms each when written here).
      await writeFile(screenPathOf(this.logPath), `${this.output.end}\n${ansi ?? ""}`, { mode: 0o600 });
    } catch {}
  }

  private closeTee(): void {
    if (this.tee !== null) closeSync(this.tee);
    this.tee = null;
  }

  /** Runs `fn` when the stream is disposed: for what listens to it and holds a resource (line-file.ts). */
  onDispose(fn: () => void): void {
    this.disposers.push(fn);
  }

  /** Closes the screen and everything that listens to the stream; a call still waiting on it answers SESSION_NOT_FOUND. */
  dispose(): void {
    this.closed_ = true;
    for (const fn of this.disposers.splice(0)) fn();
    this.view.dispose();
    this.listeners.clear();
  }
}
