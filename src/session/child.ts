// The program of a session and its terminal: spawned on a PTY (Bun.spawn with `terminal`), with
// the two bounds a real terminal gives it.
// - Output: when the screen falls too far behind, output is stopped the way a terminal's flow
//   control does it: XOFF (^S) into the line discipline, whose IXON then blocks the program's
//   writes until XON (^Q). Bun.Terminal cannot stop reading the PTY itself. A program in raw mode
//   has IXON off; it is turned on just for the pause and restored after, once output flows again.
// - Input: what the program has not read yet is bounded; past the bound a writer waits for it to
//   read (Bun's `drain` says the terminal took everything written), and gives up at its deadline.
import type { Subprocess, Terminal } from "bun";
import { TermdError } from "../terminal/errors.ts";
import type { Size, Termios } from "../protocol/schemas.ts";
import { describeTermios, readControlChars } from "./termios.ts";
import { parseSignal, signalNumber } from "./signals.ts";

/** Input the program may leave unread before a writer has to wait. */
export const MAX_UNREAD_INPUT = 1024 * 1024;
/** Pieces a large input is written in, each once the last has room. */
const INPUT_PIECE = 64 * 1024;
/** How long an exited child's last bytes may take to drain from the PTY. */
const DRAIN_MS = 250;
/** Output still arriving this long after an XOFF means it did not take (^C restarts output): again. */
const REPAUSE_BYTES = 256 * 1024;
/** How long after an XON the IXON flag termd turned on is kept, if no output shows it took. */
const IXON_RESTORE_MS = 100;
const IXON = process.platform === "linux" ? 0x400 : 0x200;
const XOFF = "\x13";
const XON = "\x11";

export interface ChildSpec {
  command: string[];
  cwd: string;
  env: Record<string, string>;
  size: Size;
  term: string;
  onData(data: Uint8Array): void;
}

export interface ChildExit {
  exitCode: number | null;
  signal: string | null;
}

export class Child {
  readonly pid: number;
  /** Resolves once the program exited and its last output was read. */
  readonly exited: Promise<ChildExit>;
  private readonly proc: Subprocess;
  private readonly terminal: Terminal;
  private running = true;
  private unflushed = 0;
  private readonly drainWaiters = new Set<() => void>();
  private received = 0;
  private pausedAt: number | null = null;
  /** The input flags with the IXON termd added for a pause; null when it added none. */
  private ixonAdded: number | null = null;
  private ixonTimer: Timer | undefined;
  /** Set by sendSignal: how a death by that signal is told apart from a crash. */
  signalSent: string | null = null;

  /** Throws SPAWN_FAILED with the reason when the program cannot start. */
  constructor(spec: ChildSpec) {
    const ptyClosed = Promise.withResolvers<void>();
    try {
      this.proc = Bun.spawn(spec.command, {
        cwd: spec.cwd,
        env: { ...spec.env, TERM: spec.term },
        terminal: {
          rows: spec.size.rows,
          cols: spec.size.cols,
          name: spec.term,
          data: (_t, data) => this.onData(data, spec.onData),
          drain: () => this.onDrain(),
          exit: () => ptyClosed.resolve(),
        },
      });
    } catch (err) {
      throw new TermdError("SPAWN_FAILED", `cannot start ${spec.command[0]}: ${(err as Error).message}`);
    }
    this.terminal = this.proc.terminal!;
    this.pid = this.proc.pid;
    this.exited = this.proc.exited.then(async () => {
      // The last bytes may still sit in the PTY after the child exited; give them a moment.
      let timer: Timer | undefined;
      await Promise.race([ptyClosed.promise, new Promise<void>((r) => (timer = setTimeout(r, DRAIN_MS)))]);
      clearTimeout(timer);
      this.running = false;
      clearTimeout(this.ixonTimer);
      this.terminal.close();
      this.onDrain();
      const code = this.proc.signalCode;
      const signal = typeof code === "number" ? parseSignal(code).name : (code ?? null);
      return { signal, exitCode: signal ? 128 + signalNumber(signal) : this.proc.exitCode };
    });
  }

  private get open(): boolean {
    return this.running && !this.terminal.closed;
  }

  private onData(data: Uint8Array, deliver: (d: Uint8Array) => void): void {
    this.received += data.length;
    if (this.ixonAdded !== null && this.pausedAt === null) this.restoreIxon();
    if (this.pausedAt !== null && this.received - this.pausedAt > REPAUSE_BYTES) this.stopOutput();
    deliver(data);
  }

  /** Writes now, whatever the program left unread (query replies, ^C: a few bytes). */
  write(data: string | Uint8Array): number {
    if (!this.open) throw new TermdError("SESSION_NOT_RUNNING", "the program has ended");
    this.terminal.write(data);
    const n = typeof data === "string" ? Buffer.byteLength(data) : data.length;
    this.unflushed += n;
    return n;
  }

  /**
   * Writes once the program has read enough of what came before: at most MAX_UNREAD_INPUT stays
   * unread. Fails with INPUT_NOT_READ at `deadline` (performance.now() time) or when aborted.
   */
  async writeBounded(data: string | Uint8Array, deadline: number, signal?: AbortSignal): Promise<number> {
    const bytes = typeof data === "string" ? Buffer.from(data) : data;
    for (let at = 0; at < bytes.length || (at === 0 && bytes.length === 0); ) {
      const piece = bytes.subarray(at, at + INPUT_PIECE);
      while (this.unflushed > 0 && this.unflushed + piece.length > MAX_UNREAD_INPUT) {
        if (!this.open) throw new TermdError("SESSION_NOT_RUNNING", "the program has ended");
        if (!(await this.drained(deadline, signal))) {
          throw new TermdError("INPUT_NOT_READ", `the program is not reading its input: ${this.unflushed} bytes are still unread, ${at} of ${bytes.length} were written`, {
            unread_bytes: this.unflushed,
            written_bytes: at,
          });
        }
      }
      this.write(piece);
      at += piece.length;
      if (bytes.length === 0) break;
    }
    return bytes.length;
  }

  /** True once everything written was taken; false at the deadline or on abort. */
  private drained(deadline: number, signal?: AbortSignal): Promise<boolean> {
    return new Promise((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer);
        this.drainWaiters.delete(wake);
        signal?.removeEventListener("abort", onAbort);
        resolve(ok);
      };
      const wake = () => done(true);
      const onAbort = () => done(false);
      const timer = setTimeout(() => done(false), Math.max(0, deadline - performance.now()));
      this.drainWaiters.add(wake);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  private onDrain(): void {
    this.unflushed = 0;
    for (const wake of [...this.drainWaiters]) wake();
  }

  /** Input written and not yet taken by the terminal (an upper bound). */
  get unreadInput(): number {
    return this.unflushed;
  }

  get outputPaused(): boolean {
    return this.pausedAt !== null;
  }

  /** Stops the program's output (XOFF), as a terminal whose screen is behind would. */
  pauseOutput(): void {
    if (this.pausedAt !== null || !this.open) return;
    this.stopOutput();
  }

  private stopOutput(): void {
    this.pausedAt = this.received;
    clearTimeout(this.ixonTimer);
    try {
      const flags = this.terminal.inputFlags;
      if (!(flags & IXON)) {
        this.terminal.inputFlags = flags | IXON;
        this.ixonAdded = flags | IXON;
      }
      this.write(XOFF);
    } catch {}
  }

  /** Lets output flow again (XON); IXON, if termd turned it on, goes once output shows it took. */
  resumeOutput(): void {
    if (this.pausedAt === null) return;
    this.pausedAt = null;
    if (!this.open) return;
    try {
      this.write(XON);
    } catch {}
    if (this.ixonAdded !== null) this.ixonTimer = setTimeout(() => this.restoreIxon(), IXON_RESTORE_MS);
  }

  private restoreIxon(): void {
    clearTimeout(this.ixonTimer);
    const added = this.ixonAdded;
    this.ixonAdded = null;
    // Only if the program did not set its own flags meanwhile.
    if (added !== null && this.open && this.terminal.inputFlags === added) this.terminal.inputFlags = added & ~IXON;
  }

  resize(size: Size): void {
    if (this.open) this.terminal.resize(size.cols, size.rows);
  }

  /** The PTY's termios (flags from Bun, control characters through stty); null once it closed. */
  async termios(): Promise<Termios | null> {
    if (!this.open) return null;
    const t = this.terminal;
    // The IXON a pause added is termd's, not the program's.
    const iflag = this.ixonAdded !== null && t.inputFlags === this.ixonAdded ? this.ixonAdded & ~IXON : t.inputFlags;
    const flags = { iflag, oflag: t.outputFlags, lflag: t.localFlags, cflag: t.controlFlags };
    return describeTermios(flags, await readControlChars(this.pid));
  }

  signal(name: string): void {
    if (this.running) this.proc.kill(name as NodeJS.Signals);
  }

  sendSignal(sig: string | number): string {
    const { name } = parseSignal(sig);
    this.signalSent = name;
    this.signal(name);
    return name;
  }

  /** SIGTERM, then SIGKILL once `graceMs` passed; resolves when the child is gone. */
  async stop(graceMs: number): Promise<void> {
    if (this.running) {
      this.signal("SIGTERM");
      const timer = setTimeout(() => this.signal("SIGKILL"), graceMs);
      await this.exited;
      clearTimeout(timer);
    }
    await this.exited;
  }

  kill(): void {
    this.signal("SIGKILL");
  }
}
