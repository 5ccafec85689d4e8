// exec.run's part of one session: at most one command at a time, run in its shell (shell-run.ts)
// or, with `fresh`, beside it (fresh-exec.ts); exec.cancel ends it.
import { basename } from "node:path";
import type { ExecResult, ExecRunInput } from "../protocol/schemas.ts";
import { foregroundGroup } from "../pty/processes.ts";
import { parseSignal } from "../pty/signals.ts";
import { TermdError } from "../terminal/errors.ts";
import { FreshRun } from "./fresh-exec.ts";
import type { ShellCommands } from "./shell-commands.ts";
import { firstPrompt, promptAfterRun, promptBeforeLine } from "./shell-ready.ts";
import { type RunnerMark, ShellRun } from "./shell-run.ts";
import type { ProgramStream } from "./stream.ts";

/** Shells whose syntax shell-run.ts's wrapper is written in (POSIX sh: `.`, `$?`, printf, ${X+x}). */
const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh"]);

/** Throws NOT_A_SHELL unless the session runs an interactive POSIX shell. */
function checkShell(s: ProgramStream): void {
  const [prog, ...args] = s.command;
  const name = basename(prog ?? "").replace(/^-/, "");
  if (!SHELLS.has(name) || args.includes("-c")) {
    throw new TermdError("NOT_A_SHELL", `session ${s.name} runs ${s.command.join(" ")}, not an interactive POSIX shell`, {
      session: s.name,
    });
  }
}

/** The exec.run part of one session: at most one command at a time in its shell. */
export class ExecRunner implements RunnerMark {
  private current: ShellRun | FreshRun | null = null;
  /** A run waits for the shell's first prompt before it is `current`: the shell is taken already. */
  private starting = false;
  /** Settles once the run that is `starting` has its first prompt (or gave up waiting for it). */
  private started: Promise<void> = Promise.resolve();
  /** Settles once the shell run in progress has answered (its prompt back) and left the shell free. */
  private answered: Promise<void> = Promise.resolve();
  /** exec.cancel came while starting: the run ends cancelled without typing its command. */
  private cancelledBeforeStart = false;
  /** Output offset just past the last mark: the prompt the shell draws after it comes later. */
  markEnd = 0;
  /** exec.run calls that ran a command in this session. */
  count = 0;
  /** When the last one started or ended. */
  lastAt: Date | null = null;
  /** The environment the session's program started with: a fresh run's (set by the store). */
  env: Record<string, string> = {};

  /** @param defaultTimeoutMs a call's timeout when it names none (session.create's exec_timeout_ms; 0: none). */
  constructor(
    private readonly s: ProgramStream,
    private readonly commands: ShellCommands,
    private readonly defaultTimeoutMs = 0,
  ) {}

  /** A command is running. */
  get busy(): boolean {
    return this.current !== null || this.starting;
  }

  /**
   * Runs `p.command` in the shell of a running session (the daemon's dispatch checks that); throws
   * SESSION_BUSY while another run (or any job) has the terminal.
   */
  async run(p: ExecRunInput): Promise<ExecResult> {
    const s = this.s;
    if (p.fresh) return this.runFresh(p);
    checkShell(s);
    this.assertFree();
    this.starting = true;
    const start = performance.now();
    const started = Promise.withResolvers<void>();
    this.started = started.promise;
    let cancelled = false;
    try {
      await firstPrompt(s, this.commands);
      // Just after a command (one a safe submit typed): its prompt, whose PROMPT_COMMAND may have
      // a job of its own in the foreground for a moment, which is no job of the user's.
      await promptBeforeLine(s, this.commands);
    } finally {
      this.starting = false;
      cancelled = this.cancelledBeforeStart;
      this.cancelledBeforeStart = false;
      started.resolve();
    }
    if (cancelled) {
      // exec.cancel came while the shell was still starting: the command is never typed.
      this.lastAt = new Date();
      return {
        output: "",
        stderr: "",
        exit_code: null,
        duration_ms: Math.round(performance.now() - start),
        timed_out: false,
        cancelled: true,
        truncated: false,
      };
    }
    const pid = s.pid;
    const fg = foregroundGroup(pid);
    if (fg !== null && fg !== pid) {
      throw new TermdError("SESSION_BUSY", `session ${s.name} has a job in the foreground (process group ${fg})`, { session: s.name });
    }
    // Absent: the session's default; 0: no limit.
    const run = new ShellRun(s, this, this.commands, pid, p, p.timeout_ms ?? this.defaultTimeoutMs);
    this.current = run;
    this.count++;
    this.lastAt = new Date();
    const answered = Promise.withResolvers<void>();
    this.answered = answered.promise;
    try {
      const result = await run.result;
      // The answer comes once the shell is back at its prompt: a line its caller types next (a
      // safe submit, the next run) then lands after the prompt, not before it. A run that never
      // finished (null) has no prompt to wait for.
      if (result.exit_code !== null) await promptAfterRun(s, this.commands, this.markEnd);
      return result;
    } finally {
      this.current = null;
      this.lastAt = new Date();
      run.dispose();
      answered.resolve();
    }
  }

  private assertFree(): void {
    if (this.busy) throw new TermdError("SESSION_BUSY", `session ${this.s.name} is already running a command`, { session: this.s.name });
  }

  /** `fresh: true`: a new `SHELL -c COMMAND` over pipes (fresh-exec.ts); one at a time, as in the shell. */
  private async runFresh(p: ExecRunInput): Promise<ExecResult> {
    const s = this.s;
    this.assertFree();
    const shell = s.command[0];
    if (shell === undefined)
      throw new TermdError("NOT_A_SHELL", `session ${s.name} has no program to run a command with`, { session: s.name });
    let run: FreshRun;
    try {
      run = new FreshRun({ shell, cwd: s.cwd, env: this.env }, p, p.timeout_ms ?? this.defaultTimeoutMs);
    } catch (err) {
      throw new TermdError("SPAWN_FAILED", `cannot run ${shell} -c in ${s.cwd}: ${(err as Error).message}`, { session: s.name });
    }
    this.current = run;
    this.count++;
    this.lastAt = new Date();
    // The session ends (its program exits, or it is stopped or removed): the command ends with it.
    const off = s.stream.on((e) => {
      if (e.type === "exit") void run.interrupt("ended", "SIGHUP");
    });
    try {
      return await run.result;
    } finally {
      off();
      this.current = null;
      this.lastAt = new Date();
      run.dispose();
    }
  }

  /**
   * Interrupts the run in progress (cancelled: false when there is none) and resolves once it has
   * ended, so the shell is free for the next exec.run the moment this answers.
   */
  async cancel(signal: string | number = "SIGINT"): Promise<{ cancelled: boolean; signal_sent: string | null }> {
    const name = parseSignal(signal).name;
    const run = this.current;
    if (!run && this.starting) {
      // Waiting for a fresh shell's first prompt: nothing runs yet, so no signal is sent; the run
      // ends cancelled as soon as the prompt is there.
      this.cancelledBeforeStart = true;
      await this.started;
      return { cancelled: true, signal_sent: null };
    }
    if (!run) return { cancelled: false, signal_sent: null };
    void run.interrupt("cancel", name);
    // A fresh run's finally (busy cleared) has run when its result is in, as run() awaited it
    // first; a shell run's once its prompt is back too (`answered`).
    await run.result;
    await this.answered;
    return { cancelled: true, signal_sent: name };
  }
}
