// The program of a session, as the daemon's thread sees it: it runs on a PTY in a pty worker
// (native-pty.ts or pty.ts, pty-worker.ts), and this side sends it input, resizes and signals and
// gets its output and its end. Input goes straight into a PTY termd owns while nothing is queued
// before it, else through the worker, which queues what the terminal has no room for. Input is
// bounded the way a terminal bounds it: what the program has not read yet is at most
// MAX_UNREAD_INPUT; past it a writer waits for it to read (the worker's `drain` says the terminal
// took everything queued), and gives up at its deadline.
import { TermdError } from "../terminal/errors.ts";
import type { Size, Termios } from "../protocol/schemas.ts";
import type { FromPtyWorker, OutputRead, OutputSetup, ToPtyWorker } from "./pty-messages.ts";
import type { PtyLink, PtyPool } from "./pty-pool.ts";
import type { Cancel } from "../platform/timers.ts";
import type { RemoteScreen, ScreenOpening, ScreenOwner } from "../terminal/remote-screen.ts";
import type { TapState } from "../terminal/tap-facts.ts";
import type { ProgramExit } from "./polled-pty.ts";
import type { PtySpec } from "./pty.ts";
import { PtyMaster } from "./pty-master.ts";
import { describeTermios, readControlChars, type TermiosFlags } from "./termios.ts";
import { parseSignal } from "./signals.ts";
import { foregroundGroup, reapChildLater, reapLeftovers, signalSession, startTime } from "./processes.ts";
import type { LeftoverWatch } from "./leftover-watch.ts";

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

const encoder = new TextEncoder();

/**
 * `data` in pieces of at most INPUT_PIECE bytes (one empty piece for none), each valid until the
 * next is taken. A string is encoded a piece at a time, never whole: an 8 MiB input costs the
 * daemon's thread one piece, not a second copy of itself. `bytes()`: its size in all.
 */
function inPieces(data: string | Uint8Array): Iterable<Uint8Array> & { bytes(): number } {
  if (typeof data !== "string") {
    return {
      *[Symbol.iterator]() {
        let at = 0;
        do yield data.subarray(at, (at += INPUT_PIECE));
        while (at < data.length);
      },
      bytes: () => data.length,
    };
  }
  const piece = new Uint8Array(INPUT_PIECE);
  return {
    *[Symbol.iterator]() {
      let at = 0;
      do {
        // A piece's characters, never half of a surrogate pair (encoded alone, it would be U+FFFD).
        let end = Math.min(data.length, at + INPUT_PIECE);
        const last = data.charCodeAt(end - 1);
        if (end < data.length && last >= 0xd800 && last <= 0xdbff) end--;
        const { read, written } = encoder.encodeInto(data.slice(at, end), piece);
        at += read;
        yield piece.subarray(0, written);
      } while (at < data.length);
    },
    bytes: () => Buffer.byteLength(data),
  };
}

export interface ChildSpec extends PtySpec, OutputSetup {
  /** One read, in order; `fed`: the screen given to feedScreen has parsed it already. */
  onData(read: OutputRead): void;
}

/** A program an earlier image of this daemon started: its pid, its PTY's master (open across the exec), how it ended if it has. */
export interface Adoption {
  pid: number;
  fd: number;
  exit: ProgramExit | null;
  /** Input the earlier image had queued and not written (its pty worker's queue). */
  input: Uint8Array | null;
}

export interface ChildExit {
  exitCode: number | null;
  signal: string | null;
  /** The program's pty worker died: what happened, for the session's `error` (its processes were ended; how they exited is unknown). */
  lost?: string;
  /** The vt tap's state after the last byte (not when the worker died). */
  tap?: TapState;
}

export class Child {
  /** Resolves once the program exited and its last output was read. */
  readonly exited: Promise<ChildExit>;
  private readonly ended = Promise.withResolvers<ChildExit>();
  private running = true;
  /** Input bytes sent to the worker that its last drain had not taken yet (on their way, or queued there). */
  private unflushed = 0;
  /** Input bytes sent to the worker in all. */
  private posted = 0;
  /**
   * Resizes sent to the worker and not yet applied: a write meanwhile goes through the worker too,
   * behind them, or typed `stty size` right after a resize would read the old size.
   */
  private resizing = 0;
  /**
   * Input sent to the worker while it was held (pty-pool.ts's hold, by its number): it waits behind
   * the worker's answer, written if the workers are released, dropped by the exec otherwise, so
   * the handover record carries it too (inputToCarry).
   */
  private lateInput: { hold: number; data: Uint8Array[] } | null = null;
  private readonly drainWaiters = new Set<() => void>();
  private paused = false;
  private nextReq = 1;
  private readonly flagReplies = new Map<number, (f: TermiosFlags | null) => void>();
  /**
   * Stops waiting on what the program left (leftover-watch.ts): while one does, its last look
   * found processes in session `pid`, so the number cannot be another session's yet.
   */
  private leftoverStops = 0;
  /** Set by sendSignal: how a death by that signal is told apart from a crash. */
  signalSent: string | null = null;

  /** When the program started (processes.ts's startTime): with the pid, who it is. */
  readonly pidStart: string | null;

  private constructor(
    readonly pid: number,
    private readonly link: PtyLink,
    /** The PTY's master where termd owns it (pty-master.ts): input goes straight to it while nothing waits in the worker's queue. */
    private readonly master: PtyMaster | null,
    /** The stops under way of the daemon's programs (its pool's), which this one's stop joins. */
    private readonly leftovers: LeftoverWatch,
    /** Input the worker writes before any (an adoption's carried over): counted as sent to it. */
    carried = 0,
  ) {
    this.unflushed = this.posted = carried;
    this.exited = this.ended.promise;
    this.pidStart = startTime(pid);
  }

  /**
   * Starts the program in a pty worker, or with `adopt` takes over one an earlier image of this
   * daemon started (daemon/handover.ts). Rejects with SPAWN_FAILED and the reason when it cannot
   * (throws it when the pool has no worker to give it to: pty-pool.ts's open).
   */
  static spawn(spec: ChildSpec, pool: PtyPool, adopt?: Adoption): Promise<Child> {
    const { promise, resolve, reject } = Promise.withResolvers<Child>();
    let child: Child | null = null;
    /** A restart is answered with its marker in the output: the data message after "spawned". */
    let preludeDue = false;
    const { onData } = spec;
    // Only what a message can carry.
    const ptySpec: PtySpec = { command: spec.command, cwd: spec.cwd, env: spec.env, size: spec.size, term: spec.term };
    /** Buffers of pooled reads, taken: they go back with the next ack, or GIVE_BACK_MS after the first. */
    let taken: ArrayBuffer[] = [];
    let giveBack: Cancel | undefined;
    // An ack the worker did not ask for says no more than that this thread has taken everything.
    const ack = () => {
      giveBack?.();
      giveBack = undefined;
      const buffers = taken;
      taken = [];
      link.send({ t: "ack", id: link.id, buffers }, buffers);
    };
    const link = pool.open({
      message: (m: FromPtyWorker) => {
        if (m.t === "spawned") {
          child = new Child(m.pid, link, m.fd === null ? null : new PtyMaster(m.fd), pool.leftovers, adopt?.input?.length ?? 0);
          if (spec.prelude) preludeDue = true;
          else resolve(child);
        } else if (m.t === "failed") reject(new TermdError("SPAWN_FAILED", `cannot start ${spec.command[0]}: ${m.message}`));
        else if (m.t === "data") {
          // Handled in this turn, whole: what the worker asked about is taken, and no listener
          // keeps the bytes past its call (the ring and the log have their own copies).
          onData(m);
          if (m.pooled && taken.length < MAX_TAKEN) {
            taken.push(m.data.buffer as ArrayBuffer);
            giveBack ??= pool.timers.after(GIVE_BACK_MS, ack);
          }
          if (m.ack) ack();
          if (preludeDue) {
            preludeDue = false;
            resolve(child!);
          }
        } else {
          if (m.t === "exit") giveBack?.();
          child?.receive(m);
        }
      },
      lost: (why) => {
        child?.lose(why);
        // A start not answered yet fails (one answered already stays answered).
        reject(new TermdError("SPAWN_FAILED", `cannot start ${spec.command[0]}: the pty worker died (${why})`));
      },
    });
    const { at, log, prelude, tap, debugBuffer, text, tee } = spec;
    if (adopt) link.send({ t: "adopt", id: link.id, ...adopt, size: spec.size, at, log, tap, debugBuffer, text });
    else link.send({ t: "spawn", id: link.id, spec: ptySpec, at, log, prelude, tap, debugBuffer, text, tee });
    return promise;
  }

  private send(m: ToPtyWorker, transfer?: ArrayBuffer[]): void {
    this.link.send(m, transfer);
  }

  /** The program has not ended, as far as its worker has said. */
  get runs(): boolean {
    return this.running;
  }

  /** The PTY's master while the program runs, where termd owns it: what a handover passes to the next image. */
  get masterFd(): number | null {
    return this.running ? (this.master?.descriptor ?? null) : null;
  }

  private get id(): number {
    return this.link.id;
  }

  /** A screen on the thread that reads this program's output (pty-pool.ts). */
  openScreen(opening: ScreenOpening, owner: ScreenOwner): RemoteScreen {
    return this.link.openScreen(opening, owner);
  }

  /** Has the worker's tap make the output's plain text (text events), or stop. */
  wantText(on: boolean): void {
    if (this.running) this.send({ t: "text", id: this.id, on });
  }

  /** Has the worker feed the output to `screenId` as it reads it (null: stop). */
  feedScreen(screenId: number | null): void {
    if (this.running) this.send({ t: "feed", id: this.id, screen: screenId });
  }

  private receive(m: FromPtyWorker): void {
    if (m.t === "drain") this.onDrain(m.taken);
    else if (m.t === "resized") this.resizing--;
    else if (m.t === "exit") this.end({ exitCode: m.exitCode, signal: m.signal, tap: m.tap });
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
    this.master?.close();
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
    const hold = this.link.holding();
    // A hold released (a handover that failed): what was sent meanwhile has been written by now.
    if (hold === null) this.lateInput = null;
    // Straight into the PTY when nothing waits before it: no hop through the worker for a key.
    // What does not fit (or EIO: closing) goes to the worker, which queues it, or drops it at the end.
    const written = this.master !== null && this.unflushed === 0 && this.resizing === 0 ? this.master.write(bytes) : 0;
    if (written < bytes.length) {
      // Moved to the worker in a buffer of exactly the bytes left: a view posted as it is would
      // be cloned with the whole buffer it views (a large input's, once per INPUT_PIECE).
      const left = bytes.length - written;
      const rest = new Uint8Array(left);
      rest.set(bytes.subarray(written));
      if (hold !== null) {
        if (this.lateInput?.hold !== hold) this.lateInput = { hold, data: [] };
        this.lateInput.data.push(rest.slice());
      }
      this.send({ t: "write", id: this.id, data: rest }, [rest.buffer]); // rest is empty from here on
      this.unflushed += left;
      this.posted += left;
    }
    return bytes.length;
  }

  /**
   * What the next image is to write first (daemon/handover.ts's record): `queued`, the worker's
   * queue when it answered the hold, then what was sent to it since, in order.
   */
  inputToCarry(queued: Uint8Array | null): Uint8Array | null {
    const hold = this.link.holding();
    const late = hold !== null && this.lateInput?.hold === hold ? this.lateInput.data : [];
    if (queued === null && late.length === 0) return null;
    return Buffer.concat([queued ?? new Uint8Array(0), ...late]);
  }

  /**
   * Writes once the program has read enough of what came before: at most MAX_UNREAD_INPUT stays
   * unread. Fails with INPUT_NOT_READ at `deadline` (performance.now() time) or when aborted.
   */
  async writeBounded(data: string | Uint8Array, deadline: number, signal?: AbortSignal): Promise<number> {
    const pieces = inPieces(data);
    let at = 0;
    for (const piece of pieces) {
      while (this.unflushed > 0 && this.unflushed + piece.length > MAX_UNREAD_INPUT) {
        if (!this.running) throw new TermdError("SESSION_NOT_RUNNING", "the program has ended");
        if (!(await this.drained(deadline, signal))) {
          throw new TermdError(
            "INPUT_NOT_READ",
            `the program is not reading its input: ${this.unflushed} bytes are still unread, ${at} of ${pieces.bytes()} were written`,
            {
              unread_bytes: this.unflushed,
              written_bytes: at,
            },
          );
        }
      }
      this.write(piece);
      at += piece.length;
    }
    return at;
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

  /**
   * The worker's queue emptied after it was sent `taken` bytes: what was sent after that is still
   * on its way, and a direct write now would overtake it. No `taken`: the program ended.
   */
  private onDrain(taken = this.posted): void {
    this.unflushed = this.posted - taken;
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
    if (!this.running) return;
    this.resizing++;
    this.send({ t: "resize", id: this.id, rows: size.rows, cols: size.cols });
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
   * is left (or, past the grace, SIGKILL could not end one). A grace of 0 is SIGKILL at once,
   * also to what a stop under way left waiting out its grace (`termd daemon stop --grace 0` while
   * a `termd stop --grace 30000` runs): it resolves once none of it is left. Once no stop waits
   * on the session any more it does nothing: its number may be an unrelated session's by then.
   */
  async stop(graceMs: number): Promise<void> {
    if (!this.running) {
      await this.exited;
      if (graceMs <= 0 && this.leftoverStops > 0) await this.leftovers.emptied(this.pid, 0, performance.now() + LEFTOVER_MS);
      return;
    }
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
    this.leftoverStops++;
    await this.leftovers.emptied(this.pid, deadline, deadline + LEFTOVER_MS);
    this.leftoverStops--;
    clearTimeout(timer);
  }

  /** SIGKILL to every process of the session at once: the daemon itself is going away. */
  kill(): void {
    signalSession(this.pid, "SIGKILL");
  }
}
