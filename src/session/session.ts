// One session: a child on a PTY (Bun.spawn with `terminal`), its output kept three ways (ring
// buffer for readers, append-only log file for every byte, headless Screen for what is shown),
// and its lifecycle. Output is never dropped: the screen consumes the byte stream at its own pace
// from the ring (or, if it fell that far behind, the log), so a flood costs latency, not bytes.
import { closeSync, openSync, readSync, writeSync, mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { RpcError } from "../protocol/errors.ts";
import type { ScreenSnapshot, SessionInfo, SessionState, Size } from "../protocol/schemas.ts";
import { Screen } from "../terminal/screen.ts";
import { RingBuffer } from "./ring.ts";
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
}

export type SessionEvent =
  | { type: "output"; from: number; to: number; data: Uint8Array }
  | { type: "screen"; seq: number }
  | { type: "title"; title: string }
  | { type: "state"; state: SessionState }
  | { type: "exit"; exit_code: number | null; signal: string | null };

/** Bytes parsed into the screen per slice before yielding to the event loop under a flood. */
const SCREEN_SLICE = 64 * 1024;
const SLICE_BUDGET_MS = 8;
/** How long an exited child's last bytes may take to drain from the PTY. */
const DRAIN_MS = 250;

export class Session {
  readonly id: string;
  name: string;
  readonly command: string[];
  readonly cwd: string;
  readonly createdAt = new Date();
  endedAt: Date | null = null;
  state: SessionState = "running";
  exitCode: number | null = null;
  signal: string | null = null;
  error: string | undefined;
  readonly ring = new RingBuffer();
  readonly screen: Screen;
  readonly logPath: string;
  /** Offset up to which the screen has parsed the output. */
  screenOffset = 0;
  /** performance.now() of the last output byte or screen change; wait's "settled" clock. */
  lastActivity = performance.now();
  private logFd: number | null;
  private readonly proc: Subprocess;
  private readonly listeners = new Set<(e: SessionEvent) => void>();
  private pumping = false;
  private stopRequested = false;
  private killSent: string | null = null;
  private ptyClosed = Promise.withResolvers<void>();
  readonly ended: Promise<void>;

  constructor(spec: SessionSpec) {
    this.id = spec.id;
    this.name = spec.name;
    this.command = spec.command;
    this.cwd = spec.cwd;
    let isDir = false;
    try {
      isDir = statSync(spec.cwd).isDirectory();
    } catch {}
    if (!isDir) throw new RpcError("SPAWN_FAILED", `cwd ${spec.cwd} is not a directory`);
    mkdirSync(spec.logDir, { recursive: true, mode: 0o700 });
    this.logPath = join(spec.logDir, `${spec.id}.log`);
    this.logFd = openSync(this.logPath, "a", 0o600);
    this.screen = new Screen({
      ...spec.size,
      scrollback: spec.scrollback,
      onReply: (reply) => this.writeInput(reply),
    });
    try {
      this.proc = Bun.spawn(spec.command, {
        cwd: spec.cwd,
        env: { ...spec.env, TERM: spec.term },
        terminal: {
          rows: spec.size.rows,
          cols: spec.size.cols,
          name: spec.term,
          data: (_t, data) => this.onOutput(data),
          exit: () => this.ptyClosed.resolve(),
        },
      });
    } catch (err) {
      this.closeLog();
      this.screen.dispose();
      throw new RpcError("SPAWN_FAILED", `cannot start ${spec.command[0]}: ${(err as Error).message}`);
    }
    this.ended = this.proc.exited.then(() => this.onExit());
  }

  get pid(): number {
    return this.proc.pid;
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

  /** The screen, with the output offset it reflects. */
  snapshot(format: "text" | "ansi" = "text", scrollback = 0): ScreenSnapshot {
    return { ...this.screen.snapshot(format, scrollback), offset: this.screenOffset };
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
    const from = this.ring.end;
    this.ring.append(data);
    if (this.logFd !== null) writeSync(this.logFd, data);
    this.lastActivity = performance.now();
    this.emit({ type: "output", from, to: this.ring.end, data });
    this.pumpScreen();
  }

  /** Feeds pending output to the screen in slices, yielding to the event loop under a flood. */
  private pumpScreen(): void {
    if (this.pumping) return;
    this.pumping = true;
    const started = performance.now();
    const seq = this.screen.seq;
    const title = this.screen.title;
    while (this.screenOffset < this.ring.end) {
      const chunk = this.readOutput(this.screenOffset, SCREEN_SLICE);
      this.screenOffset += chunk.length;
      this.screen.writeSync(chunk);
      if (performance.now() - started > SLICE_BUDGET_MS && this.screenOffset < this.ring.end) {
        setImmediate(() => this.pumpScreen());
        break;
      }
    }
    this.pumping = false;
    if (this.screen.seq !== seq) {
      this.lastActivity = performance.now();
      this.emit({ type: "screen", seq: this.screen.seq });
    }
    if (this.screen.title !== title) this.emit({ type: "title", title: this.screen.title });
  }

  /** Output bytes [from, from+max) from the ring, or from the log file once the ring moved on. */
  readOutput(from: number, max: number): Uint8Array {
    const start = Math.min(from, this.ring.end);
    const fromRing = this.ring.read(start, max);
    if (fromRing) return fromRing;
    const len = Math.min(max, this.ring.end - start);
    const out = new Uint8Array(len);
    const fd = openSync(this.logPath, "r");
    try {
      let got = 0;
      while (got < len) {
        const n = readSync(fd, out, got, len - got, start + got);
        if (n <= 0) break;
        got += n;
      }
      return out.subarray(0, got);
    } finally {
      closeSync(fd);
    }
  }

  writeInput(data: string | Uint8Array): number {
    if (!this.running) throw new RpcError("SESSION_NOT_RUNNING", `session ${this.name} is ${this.state}`);
    const t = this.proc.terminal;
    if (!t || t.closed) throw new RpcError("SESSION_NOT_RUNNING", `session ${this.name} has no terminal`);
    // Input counts as activity: the program is about to answer it, so "settled" restarts here.
    this.lastActivity = performance.now();
    return t.write(data);
  }

  resize(size: Size): void {
    if (this.running) this.proc.terminal?.resize(size.cols, size.rows);
    this.screen.resize(size);
    this.lastActivity = performance.now();
  }

  sendSignal(sig: string | number): string {
    if (!this.running) throw new RpcError("SESSION_NOT_RUNNING", `session ${this.name} is ${this.state}`);
    const { name } = parseSignal(sig);
    this.killSent = name;
    this.proc.kill(name);
    return name;
  }

  /** SIGTERM, then SIGKILL once `graceMs` passed; resolves when the child is gone. */
  async stop(graceMs: number): Promise<void> {
    if (this.running) {
      this.stopRequested = true;
      this.proc.kill("SIGTERM");
      const timer = setTimeout(() => this.running && this.proc.kill("SIGKILL"), graceMs);
      await this.ended;
      clearTimeout(timer);
    }
    await this.ended;
  }

  private async onExit(): Promise<void> {
    // The last bytes may still sit in the PTY after the child exited; give them a moment.
    let timer: Timer | undefined;
    await Promise.race([this.ptyClosed.promise, new Promise<void>((r) => (timer = setTimeout(r, DRAIN_MS)))]);
    clearTimeout(timer);
    this.proc.terminal?.close();
    this.pumpScreen();
    const code = this.proc.signalCode;
    const sig = typeof code === "number" ? parseSignal(code).name : code;
    this.signal = sig ?? null;
    this.exitCode = sig ? 128 + signalNumber(sig) : this.proc.exitCode;
    this.endedAt = new Date();
    if (this.stopRequested) this.state = "stopped";
    else if (sig && sig === this.killSent) this.state = "killed";
    else if (sig || this.exitCode !== 0) this.state = "failed";
    else this.state = "exited";
    this.closeLog();
    this.emit({ type: "state", state: this.state });
    this.emit({ type: "exit", exit_code: this.exitCode, signal: this.signal });
  }

  /** Kills the child without grace; used when the daemon itself goes away. */
  kill(): void {
    if (this.running) this.proc.kill("SIGKILL");
  }

  private closeLog(): void {
    if (this.logFd !== null) closeSync(this.logFd);
    this.logFd = null;
  }

  info(): SessionInfo {
    return {
      id: this.id,
      name: this.name,
      command: this.command,
      cwd: this.cwd,
      pid: this.proc?.pid ?? null,
      state: this.state,
      exit_code: this.exitCode,
      signal: this.signal,
      ...(this.error ? { error: this.error } : {}),
      created_at: this.createdAt.toISOString(),
      ended_at: this.endedAt?.toISOString() ?? null,
      size: this.size,
      title: this.screen.title,
      bytes_out: this.ring.end,
    };
  }

  dispose(): void {
    this.kill();
    this.closeLog();
    this.screen.dispose();
    this.listeners.clear();
  }
}
