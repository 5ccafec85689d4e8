// A program on a PTY that an earlier image of this daemon started (daemon/handover.ts): its master
// crossed the exec open, under the same number, and the program is still this process's child,
// but Bun's wait for it went with that image. So the master is read as native-pty.ts reads one
// (the worker's poll loop), and the program's end is read with waitpid (platform/child-status.ts):
// soon after the terminal hangs up, and every LOOK_MS besides for a program that let its terminal
// go and runs on. Linux only, as native-pty.ts.
import { childStatus } from "../platform/child-status.ts";
import type { PtyLibc } from "../platform/pty-libc.ts";
import { PolledPty, type ProgramExit, reportedCode } from "./polled-pty.ts";
import type { PtyEvents } from "./pty.ts";
import type { PtyReactor } from "./pty-reactor.ts";
import { parseSignal } from "./signals.ts";

/** How often an adopted program whose terminal has not hung up is asked whether it ended. */
const LOOK_MS = 1000;
/** The first look after a hangup: the program usually ends right after it let its terminal go. */
const FIRST_LOOK_MS = 5;
/** As native-pty.ts's: how long an ended program's last bytes may take to drain from the PTY. */
const DRAIN_MS = 250;

export class AdoptedPty extends PolledPty {
  private hungUp = false;
  /** How it ended, once known: from the earlier image (which saw it end), or from waitpid. */
  private ended: ProgramExit | null;
  private readonly timer: Timer;
  private drainTimer: Timer | undefined;

  constructor(
    readonly pid: number,
    fd: number,
    private readonly on: PtyEvents,
    libc: PtyLibc,
    reactor: PtyReactor,
    ended: ProgramExit | null,
  ) {
    super(fd, libc, reactor);
    this.ended = ended;
    reactor.add(fd, {
      data: on.data,
      drain: on.drain,
      hangup: () => {
        this.hungUp = true;
        this.lookSoon(FIRST_LOOK_MS);
      },
    });
    this.timer = setInterval(() => this.look(), LOOK_MS);
    if (ended) this.look();
  }

  /** After a hangup the program is about to end (it let its terminal go): looks more and more rarely, up to LOOK_MS. */
  private lookSoon(pause: number): void {
    this.look();
    if (this.running && !this.ended && pause < LOOK_MS) setTimeout(() => this.lookSoon(2 * pause), pause);
  }

  /** Reaps the program if it ended; once it has, its last output is read (the hangup, or DRAIN_MS) and the end reported. */
  private look(): void {
    if (!this.running) return;
    if (!this.ended) {
      const s = childStatus(this.pid);
      if (typeof s === "string" || s.state === "running") return;
      // "gone": reaped before this image could (it ended while the daemon was being replaced).
      const signal = s.state === "ended" && s.signal !== null ? parseSignal(s.signal).name : null;
      this.ended = { exitCode: s.state === "ended" ? s.exitCode : null, signal };
    }
    if (this.hungUp) return this.finish();
    this.drainTimer ??= setTimeout(() => this.finish(), DRAIN_MS);
  }

  private finish(): void {
    if (!this.running || !this.ended) return;
    this.running = false;
    clearInterval(this.timer);
    clearTimeout(this.drainTimer);
    this.reactor.remove(this.fd);
    this.on.drain();
    this.on.exit(reportedCode(this.ended), this.ended.signal);
  }

  signal(name: string): void {
    if (!this.running) return;
    try {
      process.kill(this.pid, name as NodeJS.Signals);
    } catch {}
  }

  /** From the image before, or from waitpid. */
  exitStatus(): ProgramExit | null {
    return this.ended;
  }
}
