// One session: the program and its terminal (child.ts), every output byte (output-log.ts), the
// screen in a worker (screen-view.ts), the vt tap that reads the live stream first (modes, title,
// cwd, marks, bells, unhandled sequences), and the session's lifecycle. Session coordinates them:
// output goes tap → log → screen; a screen that falls more than MAX_SCREEN_LAG behind stops the
// program's output until it catches up, so no byte is dropped and nothing grows without bound.
// A session restored after a daemon restart has no child: its output comes from the log and its
// screen is rebuilt from it.
import { mkdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { faultText, TermdError } from "../terminal/errors.ts";
import type { Modes, ScreenSnapshot, SessionInfo, SessionState, Size, Termios } from "../protocol/schemas.ts";
import { VERSION } from "../protocol/version.ts";
import type { SnapshotFormat } from "../terminal/screen-messages.ts";
import type { ScreenPool } from "../terminal/screen-pool.ts";
import { VtTap, type Mark, type TapEvent } from "../terminal/vt-tap.ts";
import { Child, type SignalTarget } from "./child.ts";
import type { PtyPool } from "./pty-pool.ts";
import { reapLeftovers, startTime } from "./processes.ts";
import { OutputLog } from "./output-log.ts";
import { writeError } from "./disk-errors.ts";
import { ScreenView, type ScreenBase } from "./screen-view.ts";
import { Waits } from "./wait.ts";
import { ExecRunner } from "./exec.ts";
import type { ShellKind } from "./shell-integration.ts";
import { ShellCommands } from "./shell-commands.ts";
import { Hold, type HoldInfo } from "./hold.ts";
import { untilJobHasTerminal } from "./interrupt.ts";
import { notRunning, removedError } from "./session-errors.ts";

export interface SessionSpec {
  id: string;
  name: string;
  /** The program as the client asked for it (what info shows). */
  command: string[];
  /** What is executed, when that differs from `command` (shell integration's rc file). */
  argv?: string[];
  /** The shell whose hooks were added, if any. */
  shellIntegration?: ShellKind | null;
  cwd: string;
  env: Record<string, string>;
  size: Size;
  scrollback: number;
  term: string;
  logDir: string;
  /** Size of the unhandled-sequence log (default DEFAULT_DEBUG_BUFFER). */
  debugBuffer?: number;
  /** The screen workers (default: the process's shared pool). */
  pool?: ScreenPool;
  /** The pty workers (default: the process's shared pool). */
  ptys?: PtyPool;
  /** exec.run's timeout when a call names none (0: none). */
  execTimeoutMs?: number;
}

/** What outlives the daemon: enough to list a session and rebuild its screen from the log. */
export interface SessionRecord {
  id: string;
  name: string;
  command: string[];
  cwd: string;
  pid: number | null;
  /** When that process started (processes.ts's startTime): a pid reused since is never touched. */
  pid_start?: string | null;
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
  /** What a restart starts the program with again: the environment it was given (before shell integration's additions). */
  start_env?: Record<string, string>;
  /** Whether termd's shell hooks may be added (session.create's shell_integration). */
  integrate?: boolean;
}

/** What a restart needs besides the record: the program's argv and environment, worked out by the store. */
export interface RestartSpec {
  argv: string[];
  env: Record<string, string>;
  shellIntegration: ShellKind | null;
  ptys?: PtyPool;
}

export type SessionEvent =
  | { type: "output"; from: number; to: number; data: Uint8Array }
  /** `secret`: a password typed for a person (MCP's type_secret); recordings leave it out. */
  | { type: "input"; data: string | Uint8Array; secret?: boolean }
  | { type: "resize"; size: Size }
  | { type: "screen"; seq: number }
  | TapEvent
  | { type: "state"; state: SessionState }
  /** Someone took the session over (info) or gave it back (null). */
  | { type: "hold"; hold: HoldInfo | null }
  | { type: "exit"; exit_code: number | null; signal: string | null };

/**
 * Unparsed output a screen may fall behind its program before the program's output is stopped.
 * Plain text that fast-forward skips does not count. The screen parses coloured full-screen
 * redraws at ~35 MB/s here, so that much is about 30 ms of parsing.
 */
export const MAX_SCREEN_LAG = 1024 * 1024;
/**
 * The bound that follows, as scripts/bench.ts measures it end to end: a screen shows the
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
 * (what arrives after an XOFF, up to pty.ts's REPAUSE_BYTES, fits in the rest); it goes on below
 * RING_ONLY_RESUME.
 */
const RING_ONLY_LAG = 384 * 1024;
const RING_ONLY_RESUME = 128 * 1024;

/** How long a snapshot waits for the screen to show the output so far; past it, what there is. */
const SNAPSHOT_SYNC_MS = 2000;

export function logPathOf(logDir: string, id: string): string {
  return join(logDir, `${id}.log`);
}

/** An ended session's final screen, serialized, beside its log: a restart never re-parses history. */
export function screenPathOf(logPath: string): string {
  return logPath.replace(/\.log$/, ".screen");
}

/** A lost session (its daemon died mid-run, no saved screen) is rebuilt from at most this much of its log's end. */
const LOST_TAIL_BYTES = 4 * 1024 * 1024;

/**
 * Where a restored session's screen starts: its saved final screen when that matches the log;
 * else, for a lost one, the start of the last rows+scrollback lines of the log (no further back
 * than LOST_TAIL_BYTES), since nothing older can show; else the log's first byte.
 */
function restoredBase(output: OutputLog, r: SessionRecord): ScreenBase | undefined {
  try {
    const saved = readFileSync(screenPathOf(output.path), "utf8");
    const nl = saved.indexOf("\n");
    if (Number(saved.slice(0, nl)) === output.end) return { bytes: Buffer.from(saved.slice(nl + 1)), end: output.end };
  } catch {}
  if (r.state !== "running") return undefined;
  const from = Math.max(0, output.end - LOST_TAIL_BYTES);
  const tail = output.read(from, output.end - from);
  let lines = 0;
  for (let i = tail.length - 1; i >= 0; i--) {
    if (tail[i] === 0x0a && ++lines > r.rows + r.scrollback) return { bytes: new Uint8Array(0), end: from + i + 1 };
  }
  return from > 0 ? { bytes: new Uint8Array(0), end: from } : undefined;
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
  private socketPath: string | null = null;
  /** The shell whose hooks termd added (shell-integration.ts); null for any other program, or when asked not to. */
  shellIntegration: ShellKind | null = null;
  /** session.create's `meta`: a client's own fields, kept and shown in info (not across restarts). */
  meta: Record<string, unknown> | undefined;
  /** What each dialect remembers about this session (ralph's mode), by dialect: it goes with the session. */
  readonly dialectState = new Map<string, unknown>();
  /** exec.run in this session's shell. */
  readonly exec: ExecRunner;
  readonly output: OutputLog;
  readonly view: ScreenView;
  readonly tap: VtTap;
  readonly waits: Waits;
  /** Who has taken the session over: while someone holds it, others may not type into it. */
  readonly hold = new Hold(
    () => this.name,
    (hold) => {
      this.fitClients();
      this.emit({ type: "hold", hold });
    },
  );
  /** The commands a shell reported with OSC 133 marks (session.wait's command_done). */
  readonly commands: ShellCommands;
  /** The output offset when input was last written: a command typed then finishes after it. */
  inputOffset = 0;
  /** performance.now() of the last output byte, input or screen change; wait's "settled" clock. */
  lastActivity = performance.now();
  private child: Child | null = null;
  private pid: number | null = null;
  private pidStart: string | null = null;
  private readonly listeners = new Set<(e: SessionEvent) => void>();
  private readonly clientSizes = new Map<object, Size>();
  private readonly disposers: (() => void)[] = [];
  private stopRequested = false;
  /** Removed from the store: its screen is closed, and a call still running on it answers SESSION_NOT_FOUND. */
  private disposed = false;
  ended: Promise<void>;
  /** session.create's environment and shell_integration, kept for a restart. */
  startEnv: Record<string, string> | null = null;
  integrate = true;
  private markEnded: () => void = () => {};

  private constructor(r: SessionRecord, logDir: string, opts: { debugBuffer?: number; pool?: ScreenPool; tail?: boolean; execTimeoutMs?: number }) {
    this.id = r.id;
    this.name = r.name;
    this.command = r.command;
    this.cwd = r.cwd;
    this.createdAt = new Date(r.created_at);
    this.term = r.term;
    this.scrollback = r.scrollback;
    this.output = new OutputLog(logPathOf(logDir, r.id), r.name);
    this.tap = new VtTap({ debugBuffer: opts.debugBuffer, onEvent: (e) => this.emit(e) });
    // Restored: the tap too reads the last megabyte, so a lost session still shows its last
    // title, directory and modes; the screen replays all of it, answering nothing.
    let base: ScreenBase | undefined;
    if (opts.tail) {
      const tail = this.output.restore();
      this.tap.feed(tail, this.output.end - tail.length);
      base = restoredBase(this.output, r);
    }
    this.view = new ScreenView({
      size: { rows: r.rows, cols: r.cols },
      scrollback: r.scrollback,
      version: `termd(${VERSION})`,
      log: this.output,
      pool: opts.pool,
      answeredUpTo: this.output.end,
      base,
      onChange: () => {
        this.lastActivity = performance.now();
        this.emit({ type: "screen", seq: this.view.seq });
      },
      onProgress: () => this.onScreenProgress(),
      // A reply parsed after the PTY closed (a query in the last output) has nowhere to go.
      onReply: (reply) => {
        try {
          if (this.running) this.child?.write(reply);
        } catch {}
      },
    });
    this.commands = new ShellCommands(this);
    this.waits = new Waits(this);
    this.exec = new ExecRunner(this, opts.execTimeoutMs);
    this.ended = new Promise((resolve) => (this.markEnded = resolve));
  }

  get logPath(): string {
    return this.output.path;
  }

  /** Starts the program on a new PTY. Rejects with SPAWN_FAILED and the reason when it cannot. */
  static async spawn(spec: SessionSpec): Promise<Session> {
    let isDir = false;
    try {
      isDir = statSync(spec.cwd).isDirectory();
    } catch {}
    if (!isDir) throw new TermdError("SPAWN_FAILED", `cwd ${spec.cwd} is not a directory`);
    mkdirSync(spec.logDir, { recursive: true, mode: 0o700 });
    const record: SessionRecord = {
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
    };
    const s = new Session(record, spec.logDir, { debugBuffer: spec.debugBuffer, pool: spec.pool, execTimeoutMs: spec.execTimeoutMs });
    try {
      s.output.open();
    } catch (err) {
      s.view.dispose();
      throw new TermdError("SPAWN_FAILED", `cannot open session ${spec.name}'s log: ${writeError(err, s.logPath)}`);
    }
    try {
      s.child = await Child.spawn({ ...spec, command: spec.argv ?? spec.command, onData: (data) => s.onOutput(data) }, spec.ptys);
    } catch (err) {
      s.output.close();
      rmSync(s.logPath, { force: true });
      s.view.dispose();
      throw err;
    }
    s.shellIntegration = spec.shellIntegration ?? null;
    s.pid = s.child.pid;
    s.pidStart = startTime(s.pid);
    s.exec.env = spec.env;
    void s.child.exited.then((exit) => s.onExit(exit.exitCode, exit.signal));
    return s;
  }

  /**
   * A session from an earlier daemon: no child, output from its log, screen rebuilt by replaying
   * the log. One that was running when that daemon died is `lost`.
   */
  static restore(r: SessionRecord, logDir: string, debugBuffer?: number, pool?: ScreenPool): Session {
    const s = new Session(r, logDir, { debugBuffer, pool, tail: true });
    s.pid = r.pid;
    s.pidStart = r.pid_start ?? null;
    s.startEnv = r.start_env ?? null;
    s.integrate = r.integrate ?? true;
    // The daemon that ran it died: what the program left running (nohup'ed children, background
    // jobs that outlived the hangup) dies now.
    if (r.state === "running" && r.pid !== null && r.pid_start) {
      const reaped = reapLeftovers(r.pid, r.pid_start);
      if (reaped > 0) console.error(`termd: session ${r.name}: ended ${reaped} processes its lost program left running`);
    }
    s.state = r.state === "running" ? "lost" : r.state;
    s.exitCode = r.exit_code;
    s.signal = r.signal;
    s.error = r.state === "running" ? "the daemon ended while the program ran" : r.error;
    s.endedAt = r.ended_at ? new Date(r.ended_at) : new Date();
    s.markEnded();
    s.view.pump();
    return s;
  }

  /** exec.run has a command running in this shell. */
  get busy(): boolean {
    return this.exec.busy;
  }

  get running(): boolean {
    return this.state === "running";
  }

  get size(): Size {
    return this.view.size;
  }

  /** Has the screen caught up with every byte the program wrote? */
  get screenCurrent(): boolean {
    return this.view.current;
  }

  /** The modes as of the last output byte (the screen may still be parsing up to it). */
  get modes(): Modes {
    return this.tap.modes;
  }

  /** The screen as text, from the mirror: no round trip to the worker. */
  textSnapshot(): ScreenSnapshot {
    return this.withTap(this.view.text(), this.view.parsed);
  }

  /**
   * The screen in any format, showing at least the output and resizes so far (waiting up to
   * SNAPSHOT_SYNC_MS for the worker); from the worker when it needs styles or scrollback.
   */
  async snapshot(format: SnapshotFormat = "text", scrollback = 0): Promise<ScreenSnapshot> {
    await this.view.sync(SNAPSHOT_SYNC_MS);
    this.assertPresent();
    if (format === "text" && scrollback === 0) return this.textSnapshot();
    try {
      const { offset, ...part } = await this.view.snapshot(format, scrollback);
      return this.withTap(part, offset);
    } catch (err) {
      // Removed while the worker drew it: the screen it asked is closed.
      this.assertPresent();
      throw err;
    }
  }

  /** The rows changed since `since` (a snapshot's `seq`), from the mirror, once the screen shows the output so far. */
  async changesSince(since: number): Promise<ScreenSnapshot> {
    await this.view.sync(SNAPSHOT_SYNC_MS);
    this.assertPresent();
    const { changed, full } = this.view.changesSince(since);
    return { ...this.textSnapshot(), lines: [], changed, ...(full ? { full } : {}) };
  }

  private withTap(part: ReturnType<ScreenView["text"]>, offset: number): ScreenSnapshot {
    return { ...part, title: this.tap.title, current_cwd: this.tap.cwd, modes: this.tap.modes, offset };
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
        console.error(`termd: session ${this.name} listener failed: ${faultText(err)}`);
      }
    }
  }

  private onOutput(data: Uint8Array): void {
    // The tap first, so modes and title are current before anyone reads the new bytes.
    this.tap.feed(data);
    const from = this.output.end;
    this.output.append(data);
    this.lastActivity = performance.now();
    this.emit({ type: "output", from, to: this.output.end, data });
    this.view.pump();
    const lag = this.view.lag;
    if (lag > MAX_SCREEN_LAG || this.output.end - this.view.parsed > HARD_LAG || this.view.ringOnly > RING_ONLY_LAG) this.child?.pauseOutput();
  }

  private onScreenProgress(): void {
    const caughtUp = this.view.lag <= RESUME_LAG && this.output.end - this.view.parsed <= HARD_LAG / 2 && this.view.ringOnly <= RING_ONLY_RESUME;
    if (this.child?.outputPaused && caughtUp) this.child.resumeOutput();
  }

  /** Bytes [from, from+max) of the output, from the ring or the log. */
  readOutput(from: number, max: number): Uint8Array {
    return this.output.read(from, max);
  }

  private liveChild(): Child {
    if (!this.running || !this.child) throw notRunning(this);
    return this.child;
  }

  /** The terminal closed under a write: said as every call on an ended session says it. */
  private childError(err: unknown): unknown {
    return err instanceof TermdError && err.code === "SESSION_NOT_RUNNING" ? notRunning(this) : err;
  }

  /** Writes at once, however much the program left unread: for a few bytes (a key, ^C, a line). */
  writeInput(data: string | Uint8Array): number {
    const child = this.liveChild();
    this.waits.beforeInput();
    // Input counts as activity: the program is about to answer it, so "settled" restarts here.
    this.lastActivity = performance.now();
    this.inputOffset = this.output.end;
    let n: number;
    try {
      n = child.write(data);
    } catch (err) {
      throw this.childError(err);
    }
    this.emit({ type: "input", data });
    return n;
  }

  /**
   * Writes once the program has read enough of what came before (child.ts's MAX_UNREAD_INPUT);
   * INPUT_NOT_READ once `timeoutMs` passed without room.
   */
  async input(data: string | Uint8Array, timeoutMs: number, signal?: AbortSignal, secret = false): Promise<number> {
    this.liveChild();
    await untilJobHasTerminal(this, data);
    const child = this.liveChild();
    this.waits.beforeInput();
    this.lastActivity = performance.now();
    this.inputOffset = this.output.end;
    try {
      return await child.writeBounded(data, performance.now() + timeoutMs, signal);
    } catch (err) {
      if (err instanceof TermdError && err.code === "INPUT_NOT_READ") {
        throw new TermdError("INPUT_NOT_READ", `session ${this.name}: ${err.message} within ${timeoutMs} ms`, { ...err.details, session: this.name });
      }
      throw this.childError(err);
    } finally {
      this.emit(secret ? { type: "input", data, secret } : { type: "input", data });
    }
  }

  /** Records the socket the daemon opened for this session (shown in its info). */
  setSocket(path: string): void {
    this.socketPath = path;
  }

  /** The sequences the tap met that nobody implements (oldest first); `clear` empties the log in the same step. */
  unhandled(clear = false): ReturnType<VtTap["unhandled"]> {
    return this.tap.unhandled(clear);
  }

  /** The last shell-integration marks (OSC 133), oldest first. */
  get marks(): Mark[] {
    return [...this.tap.marks];
  }

  /** The PTY's termios; null once it closed. */
  termios(): Promise<Termios | null> {
    return this.running && this.child ? this.child.termios() : Promise.resolve(null);
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
    this.fitClients();
  }

  /** The smallest attached size; while the holder has one, the holder's (a watcher does not shrink it). */
  private fitClients(): void {
    if (this.clientSizes.size === 0 || !this.running) return;
    const held = this.hold.key ? this.clientSizes.get(this.hold.key) : undefined;
    const all = held ? [held] : [...this.clientSizes.values()];
    this.resize({ rows: Math.min(...all.map((s) => s.rows)), cols: Math.min(...all.map((s) => s.cols)) });
  }

  resize(size: Size): void {
    if (size.rows === this.size.rows && size.cols === this.size.cols) return;
    if (this.running) this.child?.resize(size);
    this.view.resize(size);
    this.lastActivity = performance.now();
    this.emit({ type: "resize", size });
  }

  sendSignal(sig: string | number, target?: SignalTarget): string {
    return this.liveChild().sendSignal(sig, target);
  }

  /** SIGHUP and SIGTERM to every process of the session, then SIGKILL once `graceMs` passed (child.ts). */
  async stop(graceMs: number): Promise<void> {
    if (this.running && this.child) {
      this.stopRequested = true;
      await this.child.stop(graceMs);
    }
    await this.ended;
  }

  private async onExit(exitCode: number | null, signal: string | null): Promise<void> {
    // "Ended" promises a final screen that shows every byte: let the screen catch up first.
    await this.view.sync();
    this.signal = signal;
    this.exitCode = exitCode;
    this.endedAt = new Date();
    if (this.stopRequested) this.state = "stopped";
    else if (signal && signal === this.child?.signalSent) this.state = "killed";
    else if (signal || exitCode !== 0) this.state = "failed";
    else this.state = "exited";
    this.output.close();
    // Told (and so persisted: the store saves on "state") in the same turn as the state changes:
    // a wait that sees the session ended must never find it "lost" after a kill -9 of the daemon.
    this.emit({ type: "state", state: this.state });
    await this.saveScreen();
    this.markEnded();
    this.emit({ type: "exit", exit_code: this.exitCode, signal: this.signal });
  }

  /** Keeps the final screen beside the log (restoredBase); a session that cannot is rebuilt from its log. */
  private async saveScreen(): Promise<void> {
    try {
      const { ansi } = await this.view.snapshot("ansi", this.scrollback);
      // Off the thread: a shutdown saves every session's screen at once (2.5 ms each when written here).
      await writeFile(screenPathOf(this.logPath), `${this.output.end}\n${ansi ?? ""}`, { mode: 0o600 });
    } catch {}
  }

  /**
   * Runs the program again in this session (one that has ended: exited, stopped, killed, failed or
   * lost): same id, name, log, recording, subscribers and size. A line in the output marks where
   * the new run begins, and a `state` event says it runs again.
   */
  async restart(spec: RestartSpec): Promise<void> {
    if (this.running) throw new TermdError("SESSION_BUSY", `session ${this.name} is running: stop it first`, { session: this.name });
    rmSync(screenPathOf(this.logPath), { force: true });
    this.output.open();
    let child: Child;
    try {
      child = await Child.spawn({ command: spec.argv, cwd: this.cwd, env: spec.env, size: this.size, term: this.term, onData: (data) => this.onOutput(data) }, spec.ptys);
    } catch (err) {
      this.output.close();
      throw err;
    }
    this.child = child;
    this.state = "running";
    this.exitCode = null;
    this.signal = null;
    this.error = null;
    this.endedAt = null;
    this.stopRequested = false;
    this.ended = new Promise((resolve) => (this.markEnded = resolve));
    this.shellIntegration = spec.shellIntegration;
    this.pid = child.pid;
    this.pidStart = startTime(child.pid);
    this.exec.env = spec.env;
    const at = new Date().toISOString();
    this.onOutput(new TextEncoder().encode(`\r\n[termd: ${this.command.join(" ")} restarted at ${at}]\r\n`));
    this.emit({ type: "state", state: "running" });
    void child.exited.then((exit) => this.onExit(exit.exitCode, exit.signal));
  }

  /** Kills the child without grace; used when the daemon itself goes away. */
  kill(): void {
    if (this.running) this.child?.kill();
  }

  record(): SessionRecord {
    return {
      id: this.id,
      name: this.name,
      command: this.command,
      cwd: this.cwd,
      pid: this.pid,
      pid_start: this.pidStart,
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
      ...(this.startEnv ? { start_env: this.startEnv } : {}),
      integrate: this.integrate,
    };
  }

  info(): SessionInfo {
    // What is persisted, less the size fields the record keeps flat, plus what lives only now.
    const { error, rows: _rows, cols: _cols, pid_start: _pidStart, start_env: _env, integrate: _integrate, ...kept } = this.record();
    return {
      ...kept,
      ...(error ? { error } : {}),
      size: this.size,
      title: this.tap.title,
      current_cwd: this.tap.cwd,
      modes: this.tap.modes,
      bells: this.tap.bells,
      last_exit_code: this.tap.lastExitCode,
      shell_integration: this.shellIntegration,
      running_command: this.tap.running && this.running ? { command: this.tap.running.command, started_at: this.tap.running.since } : null,
      bytes_out: this.output.end,
      ...(this.output.error ? { log_error: this.output.error } : {}),
      ...(this.socketPath ? { socket: this.socketPath } : {}),
      busy: this.exec.busy,
      held_by: this.hold.info?.held_by ?? null,
      held_since: this.hold.info?.held_since ?? null,
      commands_run: this.exec.count,
      last_command_at: this.exec.lastAt?.toISOString() ?? null,
      ...(this.meta ? { meta: this.meta } : {}),
    };
  }

  /** Runs `fn` when the session is disposed: for what listens to it and holds a resource. */
  onDispose(fn: () => void): void {
    this.disposers.push(fn);
  }

  /** A call that waited (for the screen, for a worker) while another client removed the session. */
  private assertPresent(): void {
    if (this.disposed) throw removedError(this.name);
  }

  /** Closes everything the session holds; a second call does nothing. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.kill();
    this.output.close();
    for (const fn of this.disposers.splice(0)) fn();
    this.waits.dispose();
    this.commands.dispose();
    this.view.dispose();
    this.listeners.clear();
  }
}
