// A program on a PTY (Bun.spawn with `terminal`), as its pty worker holds it (pty-worker.ts), with
// the output bound a real terminal gives it: when the screen falls too far behind, output is
// stopped the way a terminal's flow control does it, XOFF (^S) into the line discipline, whose
// IXON then blocks the program's writes until XON (^Q). Bun.Terminal cannot stop reading the PTY
// itself. A program in raw mode has IXON off: it is turned on just for the pause and restored
// after, once output flows again.
import type { Subprocess, Terminal } from "bun";
import type { Size } from "../protocol/schemas.ts";
import { parseSignal, signalNumber } from "./signals.ts";
import type { TermiosFlags } from "./termios.ts";

/** How long an exited child's last bytes may take to drain from the PTY. */
const DRAIN_MS = 250;
/** Output still arriving this long after an XOFF means it did not take (^C restarts output): again. */
const REPAUSE_BYTES = 256 * 1024;
/** How long after an XON the IXON flag termd turned on is kept, if no output shows it took. */
const IXON_RESTORE_MS = 100;
const IXON = process.platform === "linux" ? 0x400 : 0x200;
const XOFF = "\x13";
const XON = "\x11";

export interface PtySpec {
  command: string[];
  cwd: string;
  env: Record<string, string>;
  size: Size;
  term: string;
}

export interface PtyEvents {
  /** `ack`: no more output comes until acknowledged() is called. */
  data(data: Uint8Array, ack?: boolean): void;
  /** The terminal took everything written to it. */
  drain(): void;
  exit(exitCode: number | null, signal: string | null): void;
}

/** A program on its terminal, as the pty worker drives it: Pty (Bun.Terminal) or NativePty (termd's own). */
export interface ProgramPty {
  readonly pid: number;
  /** The master, when the daemon's thread may write to it itself (and closes it once told of the exit: pty-master.ts). */
  readonly fd: number | null;
  write(data: string | Uint8Array): void;
  /** Stops reading the program's output until resume(), so that its writes block. */
  pause(): void;
  resume(): void;
  /** The daemon took the output that asked for an acknowledgement. */
  acknowledged(): void;
  resize(size: Size): void;
  /** The termios flag words; null once the terminal closed. */
  flags(): TermiosFlags | null;
  signal(name: string): void;
}

export class Pty implements ProgramPty {
  readonly pid: number;
  readonly fd = null;
  private readonly proc: Subprocess;
  private readonly terminal: Terminal;
  private running = true;
  private received = 0;
  private pausedAt: number | null = null;
  /** The input flags with the IXON termd added for a pause; null when it added none. */
  private ixonAdded: number | null = null;
  private ixonTimer: Timer | undefined;

  /** Throws with the reason when the program cannot start. */
  constructor(spec: PtySpec, on: PtyEvents) {
    const ptyClosed = Promise.withResolvers<void>();
    this.proc = Bun.spawn(spec.command, {
      cwd: spec.cwd,
      env: { ...spec.env, TERM: spec.term },
      terminal: {
        rows: spec.size.rows,
        cols: spec.size.cols,
        name: spec.term,
        data: (_t, data) => {
          this.received += data.length;
          if (this.ixonAdded !== null && this.pausedAt === null) this.restoreIxon();
          if (this.pausedAt !== null && this.received - this.pausedAt > REPAUSE_BYTES) this.stopOutput();
          on.data(data);
        },
        drain: () => on.drain(),
        exit: () => ptyClosed.resolve(),
      },
    });
    this.terminal = this.proc.terminal!;
    this.pid = this.proc.pid;
    void this.proc.exited.then(async () => {
      // The last bytes may still sit in the PTY after the child exited; give them a moment.
      let timer: Timer | undefined;
      await Promise.race([ptyClosed.promise, new Promise<void>((r) => (timer = setTimeout(r, DRAIN_MS)))]);
      clearTimeout(timer);
      this.running = false;
      clearTimeout(this.ixonTimer);
      this.terminal.close();
      on.drain();
      const code = this.proc.signalCode;
      const signal = typeof code === "number" ? parseSignal(code).name : (code ?? null);
      on.exit(signal ? 128 + signalNumber(signal) : this.proc.exitCode, signal);
    });
  }

  private get open(): boolean {
    return this.running && !this.terminal.closed;
  }

  write(data: string | Uint8Array): void {
    if (this.open) this.terminal.write(data);
  }

  /** Stops the program's output (XOFF), as a terminal whose screen is behind would. */
  pause(): void {
    if (this.pausedAt === null && this.open) this.stopOutput();
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

  /** Bun.Terminal hands everything on unasked. */
  acknowledged(): void {}

  /** Lets output flow again (XON); IXON, if termd turned it on, goes once output shows it took. */
  resume(): void {
    if (this.pausedAt === null) return;
    this.pausedAt = null;
    if (!this.open) return;
    this.write(XON);
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

  /** The termios flag words; null once the terminal closed. The IXON a pause added is termd's, not the program's. */
  flags(): TermiosFlags | null {
    if (!this.open) return null;
    const t = this.terminal;
    const iflag = this.ixonAdded !== null && t.inputFlags === this.ixonAdded ? this.ixonAdded & ~IXON : t.inputFlags;
    return { iflag, oflag: t.outputFlags, lflag: t.localFlags, cflag: t.controlFlags };
  }

  signal(name: string): void {
    if (this.running) this.proc.kill(name as NodeJS.Signals);
  }
}
