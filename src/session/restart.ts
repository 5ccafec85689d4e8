// session.restart: a session's program stopped if it runs, then run again in the same session (same
// id, name, log, recording, subscribers and size), a line in the output marking it. The stop tells
// subscribers a new run follows (its exit event's `restarting`), so an attached terminal stays; a
// restart that cannot start the program tells them, with a second exit event without it, that the
// end stands.
import { rmSync } from "node:fs";
import { commandLine } from "../protocol/session-labels.ts";
import { TermdError } from "../terminal/errors.ts";
import { screenPathOf } from "./pipeline.ts";
import type { SessionEvent } from "./stream.ts";

/** The session a restart acts on: what it reads, its stop, its stream's events. */
interface Restarted {
  readonly name: string;
  readonly command: readonly string[];
  readonly running: boolean;
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly stream: { readonly logPath: string; emit(e: SessionEvent): void };
  stop(graceMs: number): Promise<void>;
}

export class Restart {
  /** A stop a restart follows is under way or done: its exit says a new run comes. */
  private announced = false;

  constructor(private readonly session: Restarted) {}

  /** Tells the run's end: with `restarting` while a new run follows it. */
  tellExit(): void {
    const s = this.session;
    s.stream.emit({ type: "exit", exit_code: s.exitCode, signal: s.signal, ...(this.announced ? { restarting: true } : {}) });
  }

  /** Stops the program (with `graceMs`) if it runs, then starts it again through `start`, the marker ahead of its output; the session then makes it its new run. */
  async run(graceMs: number, start: (prelude: Uint8Array) => Promise<void>): Promise<void> {
    const s = this.session;
    try {
      if (s.running) {
        this.announced = true;
        await s.stop(graceMs);
      }
      if (s.running) throw new TermdError("SESSION_BUSY", `session ${s.name} is running: stop it first`, { session: s.name });
      rmSync(screenPathOf(s.stream.logPath), { force: true });
      // The marker comes through the worker, which writes the log: ahead of the program's output.
      await start(new TextEncoder().encode(`\r\n[termd: ${commandLine(s.command)} restarted at ${new Date().toISOString()}]\r\n`));
    } catch (err) {
      // No new run after all, whatever failed: those its stop told one would follow are told the end
      // stands (a program still running will say so itself when it ends).
      if (this.announced) {
        this.announced = false;
        if (!s.running) this.tellExit();
      }
      throw err;
    }
    this.announced = false;
  }
}
