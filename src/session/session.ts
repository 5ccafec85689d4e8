// One session: a program on a terminal (pty/child.ts) and the stream it writes (pipeline.ts, its `stream`), with its
// lifecycle: started, ended (end-state.ts), restarted (restart.ts), disposed. Exec, waits and shell commands take stream.ts's interfaces.
import { rmSync } from "node:fs";
import type { SessionState, Size, Termios } from "../protocol/schemas.ts";
import { type Adoption, Child, type ChildExit, type SignalTarget } from "../pty/child.ts";
import { ClientSizes } from "./client-sizes.ts";
import { endStateOf } from "./end-state.ts";
import { ExecRunner } from "./exec-runner.ts";
import { Hold } from "./hold.ts";
import { untilJobHasTerminal } from "./interrupt.ts";
import { logPathOf } from "./log-path.ts";
import { Pipeline } from "./pipeline.ts";
import { Restart } from "./restart.ts";
import { inputError, notRunning, removedError } from "./session-errors.ts";
import type { PastRun, SessionBase, StartSpec } from "./session-spec.ts";
import { ShellCommands } from "./shell-commands.ts";
import type { ShellKind } from "./shell-integration.ts";
import type { AttachedStream, ProgramStream } from "./stream.ts";
import { Waits } from "./waits.ts";

export class Session implements ProgramStream, AttachedStream {
  readonly id: string;
  /** The store renames it. */
  name: string;
  /** Its output: the bytes, the tap's reading of them, the screen, and every event told of the session. */
  readonly stream: Pipeline;
  readonly command: string[];
  readonly cwd: string;
  readonly createdAt: Date;
  readonly term: string;
  endedAt: Date | null = null;
  state: SessionState = "running";
  exitCode: number | null = null;
  signal: string | null = null;
  error: string | null = null;
  pid: number | null = null;
  pidStart: string | null = null;
  /** The session's own socket, when the daemon gave it one (shown in its info). */
  socket: string | null = null;
  /** The shell whose hooks termd added (shell-integration.ts); null for any other program, or when asked not to. */
  shellIntegration: ShellKind | null = null;
  /** The folder of those hooks: exec.run leaves its requests to them there. */
  hooksDir: string | null = null;
  /** session.create's `meta`: a client's own fields, kept and shown in info, and in its record across restarts. */
  meta: Record<string, unknown> | undefined;
  /** The commands a shell reported with OSC 133 marks (session.wait's command_done). */
  readonly commands: ShellCommands;
  readonly waits: Waits;
  readonly exec: ExecRunner;
  /** Who has taken the session over: while someone holds it, others may not type into it. */
  readonly hold = new Hold(this, (hold) => {
    // Taken over or given back: the holder's size counts alone, or everyone's again.
    this.clients.refit();
    this.stream.emit({ type: "hold", hold });
  });
  private markEnded: () => void = () => {};
  ended = new Promise<void>((resolve) => (this.markEnded = resolve));
  private child: Child | null = null;
  private stopRequested = false;
  /** A restart stops the program, then runs it again (restart.ts). */
  private readonly restarts = new Restart(this);
  private readonly clients = new ClientSizes(this);

  private constructor(b: SessionBase, restored?: { lost: boolean }) {
    this.id = b.id;
    this.name = b.name;
    this.stream = new Pipeline({ ...b, owner: this, logPath: logPathOf(b.logDir, b.id), restored });
    this.command = b.command;
    this.cwd = b.cwd;
    this.createdAt = b.createdAt;
    this.term = b.term;
    // A restored or adopted session's program did not start under this daemon.
    this.commands = new ShellCommands(this.stream, { adopted: restored !== undefined });
    this.waits = new Waits(this, this.commands, b.answers);
    this.exec = new ExecRunner(this, this.commands, b.execTimeoutMs);
  }

  /** Starts the program on a new PTY (in a cwd the store checked). Rejects with SPAWN_FAILED and the reason when it cannot. */
  static spawn(b: SessionBase, start: StartSpec): Promise<Session> {
    return new Session(b).begin(start);
  }

  /** A session from an earlier daemon: no child, output from its log, screen rebuilt by replaying the log. */
  static restore(b: SessionBase, run: PastRun): Session {
    const s = new Session(b, { lost: run.state === "lost" });
    Object.assign(s, run);
    s.markEnded();
    s.stream.view.pump();
    return s;
  }

  /**
   * A session whose program an earlier image of this daemon started (daemon/handover.ts): it runs
   * on, its output goes on from the log's end, and its screen is rebuilt from the log's tail (as a
   * lost session's is) in a screen worker.
   */
  static adopt(b: SessionBase, program: Adoption, start: StartSpec): Promise<Session> {
    return new Session(b, { lost: true }).begin(start, program);
  }

  /** The first run: one that fails closes the screen, and a new session's log goes with it (an adopted one's is kept). */
  private async begin(spec: StartSpec, adopt?: Adoption): Promise<Session> {
    try {
      await this.start(spec, undefined, adopt);
    } catch (err) {
      if (!adopt) rmSync(this.stream.logPath, { force: true });
      this.stream.view.dispose();
      throw err;
    }
    if (adopt) this.stream.view.pump();
    return this;
  }

  /** Runs the program on a new PTY (or takes over `adopt`), its output into this session's stream. */
  private async start(spec: StartSpec, prelude?: Uint8Array, adopt?: Adoption): Promise<void> {
    const stream = this.stream;
    const program = { command: spec.argv, cwd: this.cwd, env: spec.env, size: stream.size, term: this.term };
    const child = await Child.spawn({ ...program, ...stream.runSetup(prelude), tee: spec.tee }, spec.ptys, adopt);
    // Removed while it started (a restart): the program goes with it.
    if (stream.closed) {
      child.kill();
      throw removedError(this.name);
    }
    // A new session's screen lives where its output is read (a restart's stays where it is).
    if (!adopt)
      stream.view.hostWith(
        (opening, owner) => child.openScreen(opening, owner),
        (screenId) => child.feedScreen(screenId),
      );
    stream.attach(child, spec.tee ?? null);
    this.child = child;
    this.shellIntegration = spec.shellIntegration;
    this.hooksDir = spec.hooksDir ?? null;
    this.pid = child.pid;
    this.pidStart = child.pidStart;
    this.exec.env = spec.env;
    void child.exited.then((exit) => this.onExit(exit));
  }

  get running(): boolean {
    return this.state === "running";
  }

  /** The running program (a handover passes its pid and master on); null once it ended. */
  get program(): Child | null {
    return this.running ? this.child : null;
  }

  private liveChild(): Child {
    if (!this.running || !this.child) throw notRunning(this);
    return this.child;
  }

  /** Input counts as activity (the program is about to answer it): "settled" restarts here. */
  private beforeInput(): Child {
    const child = this.liveChild();
    this.waits.beforeInput();
    this.stream.noteInput();
    return child;
  }

  /** Writes at once, however much the program left unread: for a few bytes (a key, ^C, a line). */
  writeInput(data: string | Uint8Array): number {
    const child = this.beforeInput();
    let n: number;
    try {
      n = child.write(data);
    } catch (err) {
      throw inputError(err, this);
    }
    this.stream.emit({ type: "input", data });
    return n;
  }

  /** Writes once the program has read enough of what came before (pty/child.ts's MAX_UNREAD_INPUT); else INPUT_NOT_READ after `timeoutMs`. */
  async input(data: string | Uint8Array, timeoutMs: number, signal?: AbortSignal, secret = false): Promise<number> {
    this.liveChild();
    await untilJobHasTerminal(this, data);
    const child = this.beforeInput();
    try {
      return await child.writeBounded(data, performance.now() + timeoutMs, signal);
    } catch (err) {
      throw inputError(err, this, timeoutMs);
    } finally {
      this.stream.emit(secret ? { type: "input", data, secret } : { type: "input", data });
    }
  }

  /** The PTY's termios; null once it closed. */
  termios(): Promise<Termios | null> {
    return this.program?.termios() ?? Promise.resolve(null);
  }

  /** An attached terminal's size (null: it left); see ClientSizes. */
  setClientSize(client: object, size: Size | null): void {
    // An ended session keeps its final screen as it was: attaching to look at it reflows nothing.
    if (!size || this.running) this.clients.set(client, size);
  }

  resize(size: Size): void {
    this.stream.resize(size, () => this.program?.resize(size));
  }

  sendSignal(sig: string | number, target?: SignalTarget): string {
    return this.liveChild().sendSignal(sig, target);
  }

  /** SIGHUP and SIGTERM to every process of the session, SIGKILL after `graceMs` (pty/child.ts); without grace, also to what an earlier stop under way left. */
  async stop(graceMs: number): Promise<void> {
    if (this.child && (this.running || (this.stopRequested && graceMs <= 0))) {
      this.stopRequested = true;
      await this.child.stop(graceMs);
    }
    await this.ended;
  }

  private async onExit(exit: ChildExit): Promise<void> {
    await this.stream.ended(exit.tap);
    const state = endStateOf(exit, this.stopRequested, this.child?.signalSent);
    Object.assign(this, { signal: exit.signal, exitCode: exit.exitCode, endedAt: new Date(), error: exit.lost ?? this.error, state });
    // Told (and so persisted: the store saves on "state") in the same turn as the state changes:
    // a wait that sees the session ended must never find it "lost" after a kill -9 of the daemon.
    this.stream.emit({ type: "state", state: this.state });
    await this.stream.saveScreen();
    this.markEnded();
    this.restarts.tellExit();
  }

  /** Runs the program again, stopped first with `graceMs` if it runs (restart.ts): same id, name, log, recording, subscribers and size. */
  async restart(spec: StartSpec, graceMs: number): Promise<void> {
    await this.restarts.run(graceMs, (prelude) => this.start(spec, prelude));
    Object.assign(this, { state: "running", exitCode: null, signal: null, error: null, endedAt: null, stopRequested: false });
    this.ended = new Promise((resolve) => (this.markEnded = resolve));
    this.stream.emit({ type: "state", state: "running" });
  }

  /** Without grace: the daemon itself goes away. */
  kill(): void {
    this.program?.kill();
  }

  /** Closes everything the session holds; a second call does nothing. */
  dispose(): void {
    if (this.stream.closed) return;
    this.stream.dispose();
    this.kill();
    this.waits.dispose();
    this.commands.dispose();
  }
}
