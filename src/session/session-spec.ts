// What a session is made of, how its program starts, and how an earlier daemon's run of it ended:
// the shapes the store hands a session, kept apart so that neither needs the other's module.
import type { SessionState, Size } from "../protocol/schemas.ts";
import type { ScreenPool } from "../terminal/screen-pool.ts";
import type { PtyPool } from "../pty/pty-pool.ts";
import type { AnswerPacer } from "./answer-pacer.ts";
import type { ShellKind } from "./shell-integration.ts";

/** What a session is made of, whether it starts now or an earlier daemon started it. */
export interface SessionBase {
  id: string;
  name: string;
  /** The program as the client asked for it (what info shows). */
  command: string[];
  cwd: string;
  createdAt: Date;
  size: Size;
  scrollback: number;
  term: string;
  logDir: string;
  /** Size of the unhandled-sequence log (default DEFAULT_DEBUG_BUFFER). */
  debugBuffer?: number;
  /** The daemon's screen workers: its screen lives there while no pty worker holds it. */
  pool: ScreenPool;
  /** The daemon's pacer of wait answers (its waits answer through it). */
  answers: AnswerPacer;
  /** exec.run's timeout when a call names none (0: none). */
  execTimeoutMs?: number;
}

/** What a session's record says it is made of: all but the daemon's parts it uses. */
export type RecordedBase = Omit<SessionBase, "pool" | "answers">;

/** How to start (or start again) the program: what is executed, in which environment, on which pty workers. */
export interface StartSpec {
  /** What is executed (with shell integration's rc file, when `shellIntegration` is set). */
  argv: string[];
  env: Record<string, string>;
  /** The shell whose hooks were added, if any. */
  shellIntegration: ShellKind | null;
  /** The folder of those hooks, where exec.run leaves a request for them (shell-run.ts). */
  hooksDir?: string;
  /** The daemon's pty workers. */
  ptys: PtyPool;
  /** A file to copy every output byte of this run to (session.create's log_path, pty/tee.ts), open already. */
  tee?: number;
}

/** How an earlier daemon's run of a session ended, as its record says (`lost`: that daemon died first). */
export interface PastRun {
  state: SessionState;
  exitCode: number | null;
  signal: string | null;
  error: string | null;
  endedAt: Date;
  pid: number | null;
  pidStart: string | null;
}
