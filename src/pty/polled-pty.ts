// A program's PTY whose master the pty worker's poll loop reads (pty-reactor.ts), however the
// program came to this image: started here (native-pty.ts) or taken over from the image before it
// (adopted-pty.ts). What is done to the master is the same for both; how the program is signalled
// and how its end is learnt differ.
import type { PtyLibc } from "../platform/pty-libc.ts";
import type { Size } from "../protocol/schemas.ts";
import type { ProgramPty } from "./pty.ts";
import type { PtyReactor } from "./pty-reactor.ts";
import { signalNumber } from "./signals.ts";
import { controlChars, type TermiosFlags } from "./termios.ts";

/** How a program ended: its exit code, or the signal that ended it. */
export interface ProgramExit {
  exitCode: number | null;
  signal: string | null;
}

/** The exit code a program's end is reported with: a shell's 128 + N for a death by signal N. */
export function reportedCode({ exitCode, signal }: ProgramExit): number | null {
  return signal ? 128 + signalNumber(signal) : exitCode;
}

export abstract class PolledPty implements ProgramPty {
  abstract readonly pid: number;
  /** False once the program's end has been reported: the master is no longer written or asked. */
  protected running = true;

  constructor(
    /** The master: opened by the worker, then written and closed by the daemon's thread (pty-master.ts says who does what). */
    readonly fd: number,
    protected readonly libc: PtyLibc,
    protected readonly reactor: PtyReactor,
  ) {}

  abstract signal(name: string): void;

  /** How the program ended, once known (a handover passes it on: nothing can reap it again). */
  abstract exitStatus(): ProgramExit | null;

  write(data: string | Uint8Array): void {
    if (this.running) this.reactor.write(this.fd, data);
  }

  pause(): void {
    this.reactor.pause(this.fd, true);
  }

  resume(): void {
    this.reactor.pause(this.fd, false);
  }

  acknowledged(): void {
    this.reactor.acknowledged(this.fd);
  }

  resize(size: Size): void {
    if (this.running) this.libc.setSize(this.fd, size.rows, size.cols);
  }

  flags(): TermiosFlags | null {
    const t = this.running ? this.libc.getTermios(this.fd) : null;
    return t && { iflag: t.iflag, oflag: t.oflag, lflag: t.lflag, cflag: t.cflag, cc: controlChars(t.cc) };
  }
}
