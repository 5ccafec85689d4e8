// A program on a PTY termd opens itself (Linux): /dev/ptmx read by the worker's poll loop
// (pty-reactor.ts), so a session holds two descriptors, its master and the program's process
// handle, and its output can be paused at the source: an unread master blocks the program's writes.
// The program starts as a session leader (Bun.spawn's `detached`) through `sh`, whose `<>`
// redirection opens the slave without O_NOCTTY and so makes it the controlling terminal (job
// control, ^C, SIGWINCH) before it execs the program under its own name.
import type { Subprocess } from "bun";
import { accessSync, closeSync, constants, openSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import type { PtyLibc } from "../platform/pty-libc.ts";
import type { PtyEvents, PtySpec } from "./pty.ts";
import type { FdLedger } from "./fd-ledger.ts";
import { closeUnstarted, openMaster } from "./pty-master.ts";
import type { PtyReactor } from "./pty-reactor.ts";
import { PolledPty, type ProgramExit, reportedCode } from "./polled-pty.ts";
import { parseSignal } from "./signals.ts";

/** What starts the program on its terminal; without it sessions run on Bun.Terminal (pty.ts). */
export const SHELL = "/bin/sh";

/** How long an exited child's last bytes may take to drain from the PTY. */
const DRAIN_MS = 250;

/**
 * The settings a new terminal starts with, as Bun.Terminal (termd's PTY before) and xterm set
 * them: the kernel's defaults plus BRKINT, IXANY, IMAXBEL and IUTF8 (UTF-8 aware erase).
 */
const START = { iflag: 0x6d02, oflag: 0x5, cflag: 0x4bf, lflag: 0x8a3b };

/** The path of an executable as a shell would find it, or null. */
function findExecutable(command: string, spec: PtySpec): string | null {
  if (command.includes("/")) {
    const path = isAbsolute(command) ? command : resolve(spec.cwd, command);
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      return null;
    }
  }
  return Bun.which(command, { PATH: spec.env.PATH ?? "/usr/local/bin:/usr/bin:/bin", cwd: spec.cwd });
}

export class NativePty extends PolledPty {
  readonly pid: number;
  private readonly proc: Subprocess;

  /** Throws with the reason when the program cannot start. */
  constructor(
    spec: PtySpec,
    on: PtyEvents,
    libc: PtyLibc,
    reactor: PtyReactor,
    /** Where the worker records the master until it has told the daemon's thread of it. */
    ledger: FdLedger | null = null,
  ) {
    const program = spec.command[0] ?? "";
    // sh would say "not found" on the terminal and exit 127; a caller gets the reason instead.
    if (!findExecutable(program, spec)) throw new Error(`Executable not found in $PATH: "${program}"`);
    super(openMaster(ledger), libc, reactor);
    try {
      const slavePath = libc.unlock(this.fd);
      libc.setTermios(this.fd, START);
      libc.setSize(this.fd, spec.size.rows, spec.size.cols);
      const slave = openSync(slavePath, constants.O_RDWR | constants.O_NOCTTY);
      try {
        this.proc = Bun.spawn([SHELL, "-c", `exec "$0" "$@" <>${slavePath} >&0 2>&0`, ...spec.command], {
          cwd: spec.cwd,
          env: { ...spec.env, TERM: spec.term },
          stdio: [slave, slave, slave],
          detached: true,
        });
      } finally {
        closeSync(slave);
      }
    } catch (err) {
      closeUnstarted(this.fd, ledger);
      throw err;
    }
    this.pid = this.proc.pid;
    const hungUp = Promise.withResolvers<void>();
    reactor.add(this.fd, { data: on.data, drain: on.drain, hangup: () => hungUp.resolve() });
    void this.proc.exited.then(async () => {
      // The last bytes may still sit in the PTY after the child exited; give them a moment.
      let timer: Timer | undefined;
      await Promise.race([hungUp.promise, new Promise<void>((r) => (timer = setTimeout(r, DRAIN_MS)))]);
      clearTimeout(timer);
      this.running = false;
      reactor.remove(this.fd);
      on.drain();
      const exit = this.exitStatus() ?? { exitCode: null, signal: null };
      on.exit(reportedCode(exit), exit.signal);
    });
  }

  signal(name: string): void {
    if (this.running) this.proc.kill(name as NodeJS.Signals);
  }

  /** Once Bun has reaped it. */
  exitStatus(): ProgramExit | null {
    const code = this.proc.signalCode;
    const signal = typeof code === "number" ? parseSignal(code).name : (code ?? null);
    return signal !== null || this.proc.exitCode !== null ? { exitCode: this.proc.exitCode, signal } : null;
  }
}
