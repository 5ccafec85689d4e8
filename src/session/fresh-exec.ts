// exec.run with `fresh: true`: the command runs as a new `SHELL -c COMMAND` (SHELL: the session's
// program, so a python3 session runs `python3 -c COMMAND`) in the session's starting cwd, with
// the environment the session started with plus the call's `env`, over pipes rather than the
// terminal: TRL's semantics (claw-core). Nothing persists from one run to the next (cd, export,
// set -e, traps), and `exit 3` ends only that process. The process gets a session and process
// group of its own, so a timeout or exec.cancel reaches everything it started: the signal goes to
// the group, then SIGKILL after a grace (FRESH_TIMEOUT_GRACE_MS for a timeout, so a command that
// ignores SIGINT still stops right after its timeout).
import type { Subprocess } from "bun";
import type { ExecResult, ExecRunInput } from "../protocol/schemas.ts";

/** Each of stdout and stderr is cut at this many bytes (a fresh run's, and shell-run.ts's in the shell). */
export const MAX_EXEC_OUTPUT = 4 * 1024 * 1024;

/** After a timeout's SIGINT: how long before the process group gets SIGKILL. */
export const FRESH_TIMEOUT_GRACE_MS = 100;
/** After exec.cancel's signal: how long before SIGKILL. */
const FRESH_CANCEL_GRACE_MS = 2000;
/** After the process exits: how long its pipes may stay open (a background job holding them) before the reply goes without the rest. */
const DRAIN_MS = 200;

export interface FreshSpec {
  /** The session's program: the command runs as `[shell, "-c", command]`. */
  shell: string;
  cwd: string;
  env: Record<string, string>;
}

/** Reads a stream to its end (or until stopped), keeping the first `max` bytes. */
class Capture {
  private readonly chunks: Uint8Array[] = [];
  private kept = 0;
  cut = false;
  readonly done: Promise<void>;
  readonly stop: () => void;

  constructor(stream: ReadableStream<Uint8Array>, max: number) {
    const reader = stream.getReader();
    this.stop = () => void reader.cancel().catch(() => {});
    this.done = (async () => {
      for (;;) {
        const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true as const }));
        if (done) return;
        if (this.kept >= max) {
          this.cut = true;
          continue;
        }
        const part = value.length > max - this.kept ? value.subarray(0, max - this.kept) : value;
        if (part !== value) this.cut = true;
        this.chunks.push(part);
        this.kept += part.length;
      }
    })();
  }

  text(): string {
    return Buffer.concat(this.chunks).toString("utf8");
  }
}

export class FreshRun {
  readonly result: Promise<ExecResult>;
  private readonly proc: Subprocess<"pipe", "pipe", "pipe">;
  private readonly startedAt = performance.now();
  private timer: Timer | undefined;
  private killTimer: Timer | undefined;
  private timedOut = false;
  private cancelled = false;
  private exited = false;

  constructor(spec: FreshSpec, p: ExecRunInput, timeoutMs: number) {
    const proc = Bun.spawn([spec.shell, "-c", p.command], {
      cwd: spec.cwd,
      env: { ...spec.env, ...p.env },
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
      detached: true,
    });
    this.proc = proc;
    const out = new Capture(proc.stdout, MAX_EXEC_OUTPUT);
    const err = new Capture(proc.stderr, MAX_EXEC_OUTPUT);
    // stdin: the call's text, then end of file (none: end of file at once, as /dev/null).
    void (async () => {
      try {
        if (p.stdin !== undefined && p.stdin !== "") {
          proc.stdin.write(p.stdin);
          await proc.stdin.flush();
        }
        await proc.stdin.end();
      } catch {}
    })();
    if (timeoutMs > 0) this.timer = setTimeout(() => this.interrupt("timeout", "SIGINT"), timeoutMs);
    this.result = (async () => {
      await proc.exited;
      this.exited = true;
      clearTimeout(this.timer);
      clearTimeout(this.killTimer);
      const duration_ms = Math.round(performance.now() - this.startedAt);
      // What is still in the pipes comes at once; a background job that keeps them open does not hold the reply.
      let drainTimer: Timer | undefined;
      await Promise.race([Promise.all([out.done, err.done]), new Promise((r) => (drainTimer = setTimeout(r, DRAIN_MS)))]);
      clearTimeout(drainTimer);
      out.stop();
      err.stop();
      const sig = proc.signalCode;
      return {
        output: out.text(),
        stderr: err.text(),
        exit_code: sig !== null ? null : proc.exitCode,
        ...(sig !== null ? { signal: String(sig) } : {}),
        duration_ms,
        timed_out: this.timedOut,
        cancelled: this.cancelled,
        truncated: out.cut || err.cut,
      };
    })();
  }

  private signalGroup(signal: string | number): void {
    if (this.exited) return;
    try {
      process.kill(-this.proc.pid, signal);
    } catch {
      try {
        this.proc.kill(signal as NodeJS.Signals);
      } catch {}
    }
  }

  /**
   * `signal` to the command's process group, then SIGKILL after a grace; resolves once it ended.
   * "ended": the session ended, and its commands end with it (SIGHUP, as a closed terminal's).
   */
  async interrupt(reason: "timeout" | "cancel" | "ended", signal: string): Promise<void> {
    if (this.exited) return;
    if (reason === "timeout") this.timedOut = true;
    else if (reason === "cancel") this.cancelled = true;
    this.signalGroup(signal);
    clearTimeout(this.killTimer);
    this.killTimer = setTimeout(() => this.signalGroup("SIGKILL"), reason === "cancel" ? FRESH_CANCEL_GRACE_MS : FRESH_TIMEOUT_GRACE_MS);
    await this.result.catch(() => {});
  }

  dispose(): void {
    clearTimeout(this.timer);
    clearTimeout(this.killTimer);
    // The daemon's session goes away (or a reply was sent): anything left of the group goes too.
    this.signalGroup("SIGKILL");
  }
}
