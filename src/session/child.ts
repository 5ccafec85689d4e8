// The program of a session, as the daemon's thread sees it: it runs on a PTY in a pty worker
// (native-pty.ts or pty.ts, pty-worker.ts), and this side sends it input, resizes and signals and
// gets its output and its end. Input goes straight into a PTY termd owns while nothing is queued
// before it, else through the worker, which queues what the terminal has no room for. Input is
// bounded the way a terminal bounds it: what the program has not read yet is at most
// MAX_UNREAD_INPUT; past it a writer waits for it to read (the worker's `drain` says the terminal
// took everything queued), and gives up at its deadline.
import { closeSync, writeSync } from "node:fs";
import { TermdError } from "../terminal/errors.ts";
import type { Size, Termios } from "../protocol/schemas.ts";
import type { LogFailure } from "./log-writer.ts";
import type { FromPtyWorker, ToPtyWorker } from "./pty-messages.ts";
import { ptyPool, type PtyLink, type PtyPool } from "./pty-pool.ts";
import type { RemoteScreen, ScreenOpening, ScreenOwner } from "../terminal/screen-pool.ts";
import type { ProgramExit } from "./native-pty.ts";
import type { PtySpec } from "./pty.ts";
import { describeTermios, readControlChars, type TermiosFlags } from "./termios.ts";
import { parseSignal } from "./signals.ts";
import { foregroundGroup, reapChildLater, reapLeftovers, sessionEmptied, signalSession, startTime } from "./processes.ts";

/** Who session.signal reaches. */
export type SignalTarget = "program" | "foreground" | "session";
/** How long past the grace a stop waits for SIGKILL to take what the program left behind. */
const LEFTOVER_MS = 1000;

/** Input the program may leave unread before a writer has to wait. */
export const MAX_UNREAD_INPUT = 1024 * 1024;
/** Pooled read buffers held for the worker at most (its pool keeps no more). */
const MAX_TAKEN = 32;
/** A flood that stops short of an acknowledgement gets its buffers back this soon all the same. */
const GIVE_BACK_MS = 100;
/** Pieces a large input is written in, each once the last has room. */
const INPUT_PIECE = 64 * 1024;

export interface ChildSpec extends PtySpec {
  /** The output offset of the program's first byte. */
  at: number;
  /** The session's log, which the worker appends the output to (null: it takes no more). */
  log: string | null;
  /** Output put ahead of the program's. */
  prelude?: Uint8Array;
  /**
   * `fed`: the screen given to feedScreen has parsed these bytes already. The log has them;
   * `logFailed`: only those before its `end`, and no more from now on.
   */
  onData(data: Uint8Array, fed: boolean, logFailed?: LogFailure): void;
}

/** A program an earlier image of this daemon started: its pid, its PTY's master (open across the exec), how it ended if it has. */
export interface Adoption {
  pid: number;
  fd: number;
  exit: ProgramExit | null;
}

export interface ChildExit {
  exitCode: number | null;
  signal: string | null;
  /** The program's pty worker died: what happened, for the session's `error` (its processes were ended; how they exited is unknown). */
  lost?: string;
}

export class Child {
  /** Resolves once the program exited and its last output was read. */
  readonly exited: Promise<ChildExit>;
  private readonly ended = Promise.withResolvers<ChildExit>();
  private running = true;
  private unflushed = 0;
  private readonly drainWaiters = new Set<() => void>();
  private paused = false;
  private nextReq = 1;
  private readonly flagReplies = new Map<number, (f: TermiosFlags | null) => void>();
  /** Set by sendSignal: how a death by that signal is told apart from a crash. */
  signalSent: string | null = null;

  /** When the program started (processes.ts's startTime): with the pid, who it is. */
  readonly pidStart: string | null;

  private constructor(
    readonly pid: number,
    private readonly link: PtyLink,
    /** The PTY's master where termd owns it: input goes straight to it while nothing waits in the worker's queue. */
    private master: number | null,
  ) {
    this.exited = this.ended.promise;
    this.pidStart = startTime(pid);
  }

  /**
   * Starts the program in a pty worker, or with `adopt` takes over one an earlier image of this
   * daemon started (daemon/handover.ts). Rejects with SPAWN_FAILED and the reason when it cannot.
   */
  static spawn(spec: ChildSpec, pool: PtyPool = ptyPool(), adopt?: Adoption): Promise<Child> {
    const { promise, resolve, reject } = Promise.withResolvers<Child>();
    let child: Child | null = null;
    /** A restart is answered with its marker in the output: the data message after "spawned". */
    let preludeDue = false;
    const { onData } = spec;
    // Only what a message can carry.
    const ptySpec: PtySpec = { command: spec.command, cwd: spec.cwd, env: spec.env, size: spec.size, term: spec.term };
    /** Buffers of pooled reads, taken: they go back with the next ack, or GIVE_BACK_MS after the first. */
    let taken: ArrayBuffer[] = [];
    let giveBack: Timer | undefined;
    // An ack the worker did not ask for says no more than that this thread has taken everything.
    const ack = () => {
      clearTimeout(giveBack);
      giveBack = undefined;
      const buffers = taken;
      taken = [];
      link.send({ t: "ack", id: link.id, buffers }, buffers);
    };
    const link = pool.open({
      message: (m: FromPtyWorker) => {
        if (m.t === "spawned") {
          child = new Child(m.pid, link, m.fd);
          if (spec.prelude) preludeDue = true;
          else resolve(child);
        } else if (m.t === "failed") reject(new TermdError("SPAWN_FAILED", `cannot start ${spec.command[0]}: ${m.message}`));
        else if (m.t === "data") {
          // Handled in this turn, whole: what the worker asked about is taken, and no listener
          // keeps the bytes past its call (the ring and the log have their own copies).
          onData(m.data, m.fed === true, m.logFailed);
          if (m.pooled && taken.length < MAX_TAKEN) {
            taken.push(m.data.buffer as ArrayBuffer);
            giveBack ??= setTimeout(ack, GIVE_BACK_MS).unref();
          }
          if (m.ack) ack();
          if (preludeDue) {
            preludeDue = false;
            resolve(child!);
          }
        } else {
          if (m.t === "exit") clearTimeout(giveBack);
          child?.receive(m);
        }
      },
      lost: (why) => {
        child?.lose(why);
        // A start not answered yet fails (one answered already stays answered).
        reject(new TermdError("SPAWN_FAILED", `cannot start ${spec.command[0]}: the pty worker died (${why})`));
      },
    });
    if (adopt) link.send({ t: "adopt", id: link.id, ...adopt, at: spec.at, log: spec.log });
    else link.send({ t: "spawn", id: link.id, spec: ptySpec, at: spec.at, log: spec.log, prelude: spec.prelude });
    return promise;
  }

  private send(m: ToPtyWorker, transfer?: ArrayBuffer[]): void {
    this.link.send(m, transfer);
  }

  /** The PTY's master while the program runs, where termd owns it: what a handover passes to the next image. */
  get masterFd(): number | null {
    return this.running ? this.master : null;
  }

  private get id(): number {
    return this.link.id;
  }

  /** A screen on the thread that reads this program's output (pty-pool.ts). */
  openScreen(opening: ScreenOpening, owner: ScreenOwner): RemoteScreen {
    return this.link.openScreen(opening, owner);
  }

  /** Has the worker feed the output to `screenId` as it reads it (null: stop). */
  feedScreen(screenId: number | null): void {
    if (this.running) this.send({ t: "feed", id: this.id, screen: screenId });
  }

  private receive(m: FromPtyWorker): void {
    if (m.t === "drain") this.onDrain();
    else if (m.t === "exit") this.end({ exitCode: m.exitCode, signal: m.signal });
    else if (m.t === "flags") {
      this.flagReplies.get(m.req)?.(m.flags);
      this.flagReplies.delete(m.req);
    }
  }

  /**
   * The worker died: nothing reads the terminal any more, and nothing would wait for the program.
   * Closing the master hangs the terminal up, but that sends SIGHUP to the program alone, which
   * may ignore it, and leaves what it started running: every process of the session is ended
   * first, as when the daemon goes, and the program, this process's child, is reaped.
   */
  private lose(why: string): void {
    if (!this.running) return;
    // Bun may have reaped the program just before its worker died, and the pid been reused since:
    // a process of that number is touched only if it started when the program did.
    const alive = startTime(this.pid) === this.pidStart;
    reapLeftovers(this.pid, this.pidStart);
    if (alive) reapChildLater(this.pid);
    this.end({ exitCode: null, signal: null, lost: `termd's pty worker running the program died (${why}); its processes were ended` });
  }

  /** The program exited, or its worker died: either way the worker is done with the master, and this thread closes it. */
  private end(exit: ChildExit): void {
    if (this.master !== null) {
      closeSync(this.master);
      this.master = null;
    }
    if (!this.running) return;
    this.running = false;
    this.onDrain();
    for (const reply of this.flagReplies.values()) reply(null);
    this.flagReplies.clear();
    this.ended.resolve(exit);
  }

  /** Writes now, whatever the program left unread (query replies, ^C: a few bytes). */
  write(data: string | Uint8Array): number {
    if (!this.running) throw new TermdError("SESSION_NOT_RUNNING", "the program has ended");
    const bytes = typeof data === "string" ? Buffer.from(data) : data;
    // Straight into the PTY when nothing waits before it: no hop through the worker for a key.
    let written = 0;
    if (this.master !== null && this.unflushed === 0) {
      try {
        written = writeSync(this.master, bytes);
      } catch {} // EAGAIN (no room) or EIO (closing): the worker queues it, or drops it at the end.
    }
    if (written < bytes.length) {
      this.send({ t: "write", id: this.id, data: bytes.subarray(written) });
      this.unflushed += bytes.length - written;
    }
    return bytes.length;
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
        if (!this.running) throw new TermdError("SESSION_NOT_RUNNING", "the program has ended");
        if (!(await this.drained(deadline, signal))) {
          throw new TermdError(
            "INPUT_NOT_READ",
            `the program is not reading its input: ${this.unflushed} bytes are still unread, ${at} of ${bytes.length} were written`,
            {
              unread_bytes: this.unflushed,
              written_bytes: at,
            },
          );
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

  get outputPaused(): boolean {
    return this.paused;
  }

  /** Stops the program's output (pty.ts: XOFF), as a terminal whose screen is behind would. */
  pauseOutput(): void {
    if (this.paused || !this.running) return;
    this.paused = true;
    this.send({ t: "pause", id: this.id });
  }

  resumeOutput(): void {
    if (!this.paused) return;
    this.paused = false;
    if (this.running) this.send({ t: "resume", id: this.id });
  }

  resize(size: Size): void {
    if (this.running) this.send({ t: "resize", id: this.id, rows: size.rows, cols: size.cols });
  }

  /** The PTY's termios (from the worker; control characters through stty where it cannot read them); null once it closed. */
  async termios(): Promise<Termios | null> {
    if (!this.running) return null;
    const req = this.nextReq++;
    const flags = await new Promise<TermiosFlags | null>((resolve) => {
      this.flagReplies.set(req, resolve);
      this.send({ t: "flags", id: this.id, req });
    });
    return flags ? describeTermios(flags, flags.cc ?? (await readControlChars(this.pid))) : null;
  }

  /**
   * Sends a signal, straight from this thread: to the program (default), to the terminal's
   * foreground process group (what Ctrl-C reaches: the job a shell is running), or to every
   * process of the terminal's session.
   */
  sendSignal(sig: string | number, target: SignalTarget = "program"): string {
    const { name } = parseSignal(sig);
    if (!this.running) return name;
    if (target === "session") {
      signalSession(this.pid, name);
    } else {
      const group = target === "foreground" ? foregroundGroup(this.pid) : null;
      try {
        if (group !== null) process.kill(-group, name as NodeJS.Signals);
        else process.kill(this.pid, name as NodeJS.Signals);
      } catch {}
    }
    if (target === "program" || foregroundGroup(this.pid) === this.pid) this.signalSent = name;
    return name;
  }

  /**
   * Ends every process of the terminal's session, as closing a terminal window does and more:
   * SIGHUP and SIGTERM (an interactive shell ignores SIGTERM but ends on a hangup, and hangs up
   * its jobs), then SIGKILL once `graceMs` passed to whatever is left, `nohup`ed children and
   * background jobs included. Resolves when the program has ended and no process of its session
   * is left (or, past the grace, SIGKILL could not end one). A grace of 0 is SIGKILL at once.
   */
  async stop(graceMs: number): Promise<void> {
    if (!this.running) return void (await this.exited);
    const deadline = performance.now() + graceMs;
    // No grace: SIGKILL at once, nothing the program could catch first.
    if (graceMs <= 0) signalSession(this.pid, "SIGKILL");
    else {
      signalSession(this.pid, "SIGHUP");
      signalSession(this.pid, "SIGTERM");
    }
    const timer = setTimeout(() => signalSession(this.pid, "SIGKILL"), graceMs);
    await this.exited;
    // The program is gone; what it left behind gets the rest of the grace, then SIGKILL.
    await sessionEmptied(this.pid, deadline, deadline + LEFTOVER_MS);
    clearTimeout(timer);
  }

  /** SIGKILL to every process of the session at once: the daemon itself is going away. */
  kill(): void {
    signalSession(this.pid, "SIGKILL");
  }
}
