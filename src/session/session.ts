// One session: a child on a PTY (Bun.spawn with `terminal`), its output kept three ways (ring
// buffer for readers, append-only log file for every byte, headless Screen for what is shown),
// read first by the vt tap (modes, title, cwd, marks, bells, unhandled sequences), and its
// lifecycle. Output is never dropped: the screen consumes the byte stream at its own pace
// from the ring (or, if it fell that far behind, the log), so a flood costs latency, not bytes.
// A session restored after a daemon restart has no child: its ring and screen are rebuilt from
// the log, so its output and final screen stay readable.
import { closeSync, openSync, readSync, writeSync, mkdirSync, statSync, existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { RpcError } from "../protocol/errors.ts";
import type { Modes, ScreenSnapshot, SessionInfo, SessionState, Size, Termios } from "../protocol/schemas.ts";
import { VERSION } from "../protocol/version.ts";
import { Screen } from "../terminal/screen.ts";
import { VtTap, type TapEvent } from "../terminal/vt-tap.ts";
import { describeTermios, readControlChars } from "./termios.ts";
import { RingBuffer } from "./ring.ts";
import { MIN_SKIP_BYTES, skipPoint } from "./fast-forward.ts";
import { parseSignal, signalNumber } from "./signals.ts";

export interface SessionSpec {
  id: string;
  name: string;
  command: string[];
  cwd: string;
  env: Record<string, string>;
  size: Size;
  scrollback: number;
  term: string;
  logDir: string;
  /** Size of the unhandled-sequence log (default DEFAULT_DEBUG_BUFFER). */
  debugBuffer?: number;
}

/** What outlives the daemon: enough to list a session and rebuild its screen from the log. */
export interface SessionRecord {
  id: string;
  name: string;
  command: string[];
  cwd: string;
  pid: number | null;
  state: SessionState;
  exit_code: number | null;
  signal: string | null;
  error: string | null;
  created_at: string;
  ended_at: string | null;
  rows: number;
  cols: number;
  scrollback: number;
  term: string;
}

export type SessionEvent =
  | { type: "output"; from: number; to: number; data: Uint8Array }
  | { type: "input"; data: string | Uint8Array }
  | { type: "resize"; size: Size }
  | { type: "screen"; seq: number }
  | TapEvent
  | { type: "state"; state: SessionState }
  | { type: "exit"; exit_code: number | null; signal: string | null };

/** Bytes parsed into the screen per slice before yielding to the event loop under a flood. */
const SCREEN_SLICE = 64 * 1024;
const SLICE_BUDGET_MS = 8;
/** Backlog parsed inline, in the read that brought it; more waits for a scheduled slice. */
const INLINE_PARSE_BYTES = 16 * 1024;
/** How long a flood's screen update waits for more of it. */
const FLOOD_DELAY_MS = 20;
/** How long an exited child's last bytes may take to drain from the PTY. */
const DRAIN_MS = 250;

export function logPathOf(logDir: string, id: string): string {
  return join(logDir, `${id}.log`);
}

export class Session {
  readonly id: string;
  name: string;
  readonly command: string[];
  readonly cwd: string;
  readonly createdAt: Date;
  readonly term: string;
  readonly scrollback: number;
  endedAt: Date | null = null;
  state: SessionState = "running";
  exitCode: number | null = null;
  signal: string | null = null;
  error: string | null = null;
  /** The session's own socket, when the daemon gave it one. */
  socketPath: string | null = null;
  /** Set while exec.run runs a command in this shell (src/session/exec.ts). */
  busy = false;
  readonly ring = new RingBuffer();
  readonly screen: Screen;
  readonly tap: VtTap;
  readonly logPath: string;
  /** Offset up to which the screen has parsed the output. */
  screenOffset = 0;
  /** performance.now() of the last output byte, input or screen change; wait's "settled" clock. */
  lastActivity = performance.now();
  private logFd: number | null = null;
  private proc: Subprocess | null = null;
  private pid: number | null = null;
  private readonly listeners = new Set<(e: SessionEvent) => void>();
  private pumping = false;
  private pumpScheduled = false;
  private readonly clientSizes = new Map<object, Size>();
  private readonly disposers: (() => void)[] = [];
  private nextSkipScan = 0;
  private stopRequested = false;
  private killSent: string | null = null;
  readonly ended: Promise<void>;
  private markEnded: () => void = () => {};

  private constructor(r: SessionRecord, logDir: string, debugBuffer?: number) {
    this.id = r.id;
    this.name = r.name;
    this.command = r.command;
    this.cwd = r.cwd;
    this.createdAt = new Date(r.created_at);
    this.term = r.term;
    this.scrollback = r.scrollback;
    this.logPath = logPathOf(logDir, r.id);
    this.screen = new Screen({
      rows: r.rows,
      cols: r.cols,
      scrollback: r.scrollback,
      // Never throws: a reply parsed after the PTY closed (a query in the last output) has nowhere
      // to go, and a throw inside xterm's parser would leave its write buffer stuck for good.
      onReply: (reply) => {
        const t = this.proc?.terminal;
        if (this.running && t && !t.closed) t.write(reply);
      },
      version: `termd(${VERSION})`,
    });
    this.tap = new VtTap({ debugBuffer, onEvent: (e) => this.emit(e) });
    this.ended = new Promise((resolve) => (this.markEnded = resolve));
  }

  /** Starts the program on a new PTY. Throws SPAWN_FAILED with the reason when it cannot. */
  static spawn(spec: SessionSpec): Session {
    let isDir = false;
    try {
      isDir = statSync(spec.cwd).isDirectory();
    } catch {}
    if (!isDir) throw new RpcError("SPAWN_FAILED", `cwd ${spec.cwd} is not a directory`);
    mkdirSync(spec.logDir, { recursive: true, mode: 0o700 });
    const s = new Session(
      {
        id: spec.id,
        name: spec.name,
        command: spec.command,
        cwd: spec.cwd,
        pid: null,
        state: "running",
        exit_code: null,
        signal: null,
        error: null,
        created_at: new Date().toISOString(),
        ended_at: null,
        rows: spec.size.rows,
        cols: spec.size.cols,
        scrollback: spec.scrollback,
        term: spec.term,
      },
      spec.logDir,
      spec.debugBuffer,
    );
    s.logFd = openSync(s.logPath, "a", 0o600);
    const ptyClosed = Promise.withResolvers<void>();
    try {
      s.proc = Bun.spawn(spec.command, {
        cwd: spec.cwd,
        env: { ...spec.env, TERM: spec.term },
        terminal: {
          rows: spec.size.rows,
          cols: spec.size.cols,
          name: spec.term,
          data: (_t, data) => s.onOutput(data),
          exit: () => ptyClosed.resolve(),
        },
      });
    } catch (err) {
      s.closeLog();
      rmSync(s.logPath, { force: true });
      s.screen.dispose();
      throw new RpcError("SPAWN_FAILED", `cannot start ${spec.command[0]}: ${(err as Error).message}`);
    }
    s.pid = s.proc.pid;
    void s.proc.exited.then(() => s.onExit(ptyClosed.promise));
    return s;
  }

  /**
   * A session from an earlier daemon: no child, output from its log, screen rebuilt by replaying
   * the log. One that was running when that daemon died is `lost`.
   */
  static restore(r: SessionRecord, logDir: string, debugBuffer?: number): Session {
    const s = new Session(r, logDir, debugBuffer);
    s.pid = r.pid;
    s.state = r.state === "running" ? "lost" : r.state;
    s.exitCode = r.exit_code;
    s.signal = r.signal;
    s.error = r.state === "running" ? "the daemon ended while the program ran" : r.error;
    s.endedAt = r.ended_at ? new Date(r.ended_at) : new Date();
    const size = existsSync(s.logPath) ? statSync(s.logPath).size : 0;
    s.ring.end = Math.max(0, size - s.ring.capacity);
    const tail = s.readLog(s.ring.end, size - s.ring.end);
    // The tap too, so a lost session still shows its last title, directory and modes.
    s.tap.feed(tail);
    s.ring.append(tail);
    s.markEnded();
    s.pumpScreen();
    return s;
  }

  get running(): boolean {
    return this.state === "running";
  }

  get size(): Size {
    return this.screen.size;
  }

  /** Has the screen caught up with every byte the program wrote? */
  get screenCurrent(): boolean {
    return this.screenOffset === this.ring.end;
  }

  /** The modes as of the last output byte (the screen may still be parsing up to it). */
  get modes(): Modes {
    return this.tap.modes;
  }

  /** The screen, with the output offset it reflects; title, cwd and modes from the tap. */
  snapshot(format: "text" | "ansi" | "cells" = "text", scrollback = 0): ScreenSnapshot {
    return {
      ...this.screen.snapshot(format, scrollback),
      title: this.tap.title,
      current_cwd: this.tap.cwd,
      modes: this.tap.modes,
      offset: this.screenOffset,
    };
  }

  on(fn: (e: SessionEvent) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private emit(e: SessionEvent): void {
    for (const fn of this.listeners) {
      try {
        fn(e);
      } catch (err) {
        console.error(`termd: session ${this.name} listener failed:`, err);
      }
    }
  }

  private onOutput(data: Uint8Array): void {
    // The tap first, so modes and title are current before anyone reads the new bytes.
    this.tap.feed(data);
    const from = this.ring.end;
    this.ring.append(data);
    if (this.logFd !== null) {
      try {
        writeSync(this.logFd, data);
      } catch (err) {
        // A full disk: stop logging (the log stays a correct prefix) rather than lose the session.
        console.error(`termd: session ${this.name}: log write failed, logging stops: ${(err as Error).message}`);
        this.closeLog();
      }
    }
    this.lastActivity = performance.now();
    this.emit({ type: "output", from, to: this.ring.end, data });
    // A little output (an echo, a redraw) is parsed at once: a key's round trip depends on it.
    // More is left to a scheduled slice, so the PTY keeps being read at full speed meanwhile and
    // a flood of plain text builds the backlog that fast-forward can skip.
    const backlog = this.ring.end - this.screenOffset;
    if (backlog <= INLINE_PARSE_BYTES) this.pumpScreen();
    // Already far behind: a flood. Parsing a little later lets more of it arrive first, so one
    // fast-forward skips more and less is parsed in all.
    else this.schedulePump(backlog >= MIN_SKIP_BYTES ? FLOOD_DELAY_MS : 0);
  }

  private schedulePump(delayMs = 0): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    const run = () => {
      this.pumpScheduled = false;
      this.pumpScreen();
    };
    if (delayMs > 0) setTimeout(run, delayMs);
    else setImmediate(run);
  }

  /**
   * Feeds pending output to the screen in slices, yielding to the event loop under a flood. Once
   * a slice is scheduled, new output only queues behind it: parsing inline on every read would
   * let a flood of reads starve every other client.
   */
  private pumpScreen(): void {
    if (this.pumping || this.pumpScheduled) return;
    this.pumping = true;
    const started = performance.now();
    const seq = this.screen.seq;
    try {
      this.fastForward();
      while (this.screenOffset < this.ring.end) {
        const chunk = this.readOutput(this.screenOffset, SCREEN_SLICE);
        if (chunk.length === 0) {
          // Bytes neither the ring nor the log holds (a log that could not be written): the
          // screen goes on from what is still there rather than waiting for them forever.
          this.screenOffset = Math.max(this.screenOffset, this.ring.start);
          if (this.ring.read(this.screenOffset, 1)?.length) continue;
          this.screenOffset = this.ring.end;
          break;
        }
        this.screenOffset += chunk.length;
        this.screen.writeSync(chunk);
        if (performance.now() - started > SLICE_BUDGET_MS && this.screenOffset < this.ring.end) {
          this.schedulePump();
          break;
        }
      }
    } finally {
      this.pumping = false;
    }
    if (this.screen.seq !== seq) {
      this.lastActivity = performance.now();
      this.emit({ type: "screen", seq: this.screen.seq });
    }
  }

  /** Far behind on plain text: skip what would scroll out of the scrollback anyway. */
  private fastForward(): void {
    // After a scan that found nothing to skip, the next waits for that much more output: a
    // backlog that is not plain text is not rescanned on every slice.
    if (this.ring.end < this.nextSkipScan) return;
    if (this.ring.end - this.screenOffset < MIN_SKIP_BYTES || !this.screen.plainScrolling) return;
    const keep = this.screen.size.rows + this.scrollback + 1;
    const point = skipPoint((from, max) => this.readOutput(from, max), this.screenOffset, this.ring.end, keep);
    if (point === false) this.nextSkipScan = this.ring.end + MIN_SKIP_BYTES;
    if (point === null || point === false) return;
    this.screen.clearAll();
    this.screenOffset = point;
  }

  /** Output bytes [from, from+max) from the ring, or from the log file once the ring moved on. */
  readOutput(from: number, max: number): Uint8Array {
    const start = Math.min(from, this.ring.end);
    return this.ring.read(start, max) ?? this.readLog(start, Math.min(max, this.ring.end - start));
  }

  private readLog(from: number, len: number): Uint8Array {
    const out = new Uint8Array(len);
    if (len === 0) return out;
    let fd: number;
    try {
      fd = openSync(this.logPath, "r");
    } catch {
      return out.subarray(0, 0);
    }
    try {
      let got = 0;
      while (got < len) {
        const n = readSync(fd, out, got, len - got, from + got);
        if (n <= 0) break;
        got += n;
      }
      return out.subarray(0, got);
    } finally {
      closeSync(fd);
    }
  }

  writeInput(data: string | Uint8Array): number {
    const t = this.proc?.terminal;
    if (!this.running || !t || t.closed) throw new RpcError("SESSION_NOT_RUNNING", `session ${this.name} is ${this.state}`);
    // Input counts as activity: the program is about to answer it, so "settled" restarts here.
    this.lastActivity = performance.now();
    const n = t.write(data);
    this.emit({ type: "input", data });
    return n;
  }

  /** The PTY's termios (flags from Bun, control characters through stty); null once it closed. */
  async termios(): Promise<Termios | null> {
    const t = this.proc?.terminal;
    if (!this.running || !t || t.closed) return null;
    const flags = { iflag: t.inputFlags, oflag: t.outputFlags, lflag: t.localFlags, cflag: t.controlFlags };
    return describeTermios(flags, await readControlChars(this.pid));
  }

  /**
   * An attached terminal's size (null: it left). While any are attached the session takes the
   * smallest rows and the smallest columns among them, as tmux does, so every one can show it all.
   */
  setClientSize(client: object, size: Size | null): void {
    // An ended session keeps its final screen as it was: attaching to look at it reflows nothing.
    if (size && !this.running) return;
    if (size) this.clientSizes.set(client, size);
    else if (!this.clientSizes.delete(client)) return;
    if (this.clientSizes.size === 0 || !this.running) return;
    const all = [...this.clientSizes.values()];
    this.resize({ rows: Math.min(...all.map((s) => s.rows)), cols: Math.min(...all.map((s) => s.cols)) });
  }

  resize(size: Size): void {
    if (size.rows === this.size.rows && size.cols === this.size.cols) return;
    if (this.running) this.proc?.terminal?.resize(size.cols, size.rows);
    this.screen.resize(size);
    this.lastActivity = performance.now();
    this.emit({ type: "resize", size });
  }

  sendSignal(sig: string | number): string {
    const { name } = parseSignal(sig);
    if (!this.running || !this.proc) throw new RpcError("SESSION_NOT_RUNNING", `session ${this.name} is ${this.state}`);
    this.killSent = name;
    this.proc.kill(name);
    return name;
  }

  /** SIGTERM, then SIGKILL once `graceMs` passed; resolves when the child is gone. */
  async stop(graceMs: number): Promise<void> {
    if (this.running && this.proc) {
      const proc = this.proc;
      this.stopRequested = true;
      proc.kill("SIGTERM");
      const timer = setTimeout(() => this.running && proc.kill("SIGKILL"), graceMs);
      await this.ended;
      clearTimeout(timer);
    }
    await this.ended;
  }

  private async onExit(ptyClosed: Promise<void>): Promise<void> {
    const proc = this.proc!;
    // The last bytes may still sit in the PTY after the child exited; give them a moment.
    let timer: Timer | undefined;
    await Promise.race([ptyClosed, new Promise<void>((r) => (timer = setTimeout(r, DRAIN_MS)))]);
    clearTimeout(timer);
    proc.terminal?.close();
    // "Ended" promises a final screen that shows every byte: let a flood's backlog parse first.
    // A pump that makes no progress (or throws) must not keep the session from ending.
    for (let before = -1; !this.screenCurrent && this.screenOffset !== before; ) {
      before = this.pumpScheduled ? -1 : this.screenOffset;
      try {
        this.pumpScreen();
      } catch (err) {
        console.error(`termd: session ${this.name}: screen update failed:`, err);
        break;
      }
      await new Promise((r) => setImmediate(r));
    }
    const code = proc.signalCode;
    const sig = typeof code === "number" ? parseSignal(code).name : code;
    this.signal = sig ?? null;
    this.exitCode = sig ? 128 + signalNumber(sig) : proc.exitCode;
    this.endedAt = new Date();
    if (this.stopRequested) this.state = "stopped";
    else if (sig && sig === this.killSent) this.state = "killed";
    else if (sig || this.exitCode !== 0) this.state = "failed";
    else this.state = "exited";
    this.closeLog();
    this.markEnded();
    this.emit({ type: "state", state: this.state });
    this.emit({ type: "exit", exit_code: this.exitCode, signal: this.signal });
  }

  /** Kills the child without grace; used when the daemon itself goes away. */
  kill(): void {
    if (this.running) this.proc?.kill("SIGKILL");
  }

  private closeLog(): void {
    if (this.logFd !== null) closeSync(this.logFd);
    this.logFd = null;
  }

  record(): SessionRecord {
    return {
      id: this.id,
      name: this.name,
      command: this.command,
      cwd: this.cwd,
      pid: this.pid,
      state: this.state,
      exit_code: this.exitCode,
      signal: this.signal,
      error: this.error,
      created_at: this.createdAt.toISOString(),
      ended_at: this.endedAt?.toISOString() ?? null,
      rows: this.size.rows,
      cols: this.size.cols,
      scrollback: this.scrollback,
      term: this.term,
    };
  }

  info(): SessionInfo {
    // What is persisted, less the size fields the record keeps flat, plus what lives only now.
    const { error, rows: _rows, cols: _cols, ...kept } = this.record();
    return {
      ...kept,
      ...(error ? { error } : {}),
      size: this.size,
      title: this.tap.title,
      current_cwd: this.tap.cwd,
      modes: this.tap.modes,
      bells: this.tap.bells,
      last_exit_code: this.tap.lastExitCode,
      bytes_out: this.ring.end,
      ...(this.socketPath ? { socket: this.socketPath } : {}),
      busy: this.busy,
    };
  }

  /** Runs `fn` when the session is disposed: for what listens to it and holds a resource. */
  onDispose(fn: () => void): void {
    this.disposers.push(fn);
  }

  dispose(): void {
    this.kill();
    this.closeLog();
    for (const fn of this.disposers.splice(0)) fn();
    this.screen.dispose();
    this.listeners.clear();
  }
}
