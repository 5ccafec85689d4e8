// What outlives the daemon: a session's record, enough to list it, rebuild its screen from its log
// and start its program again. The store saves one whenever a session's state or size changes,
// and brings sessions back from them.
import type { SessionState } from "../protocol/schemas.ts";
import { reapLeftovers } from "../pty/processes.ts";
import type { Session } from "./session.ts";
import type { PastRun, RecordedBase } from "./session-spec.ts";

export interface SessionRecord {
  id: string;
  name: string;
  command: string[];
  cwd: string;
  pid: number | null;
  /** When that process started (pty/processes.ts's startTime): a pid reused since is never touched. */
  pid_start?: string | null;
  state: SessionState;
  exit_code: number | null;
  signal: string | null;
  error: string | null;
  created_at: string;
  ended_at: string | null;
  rows: number;
  cols: number;
  scrollback: number;
  term: string;
  /** What a restart starts the program with again: the environment it was given (before shell integration's additions). */
  start_env?: Record<string, string>;
  /** Whether termd's shell hooks may be added (session.create's shell_integration). */
  integrate?: boolean;
  /** session.create's `meta`: a dialect's claim on the session (`meta.dialect`) outlives the daemon with it. */
  meta?: Record<string, unknown>;
}

/** What a restart starts the program with again: session.create's environment and shell_integration. */
export interface StartSettings {
  env: Record<string, string> | null;
  integrate: boolean;
}

/** Who a session is and how its program runs or ended, in the words its record and session.info share. */
export function runOf(s: Session) {
  return {
    id: s.id,
    name: s.name,
    command: s.command,
    cwd: s.cwd,
    pid: s.pid,
    state: s.state,
    exit_code: s.exitCode,
    signal: s.signal,
    created_at: s.createdAt.toISOString(),
    ended_at: s.endedAt?.toISOString() ?? null,
  };
}

export function recordOf(s: Session, start: StartSettings): SessionRecord {
  return {
    ...runOf(s),
    pid_start: s.pidStart,
    error: s.error,
    rows: s.stream.size.rows,
    cols: s.stream.size.cols,
    scrollback: s.stream.scrollback,
    term: s.term,
    ...(start.env ? { start_env: start.env } : {}),
    integrate: start.integrate,
    ...(s.meta ? { meta: s.meta } : {}),
  };
}

/**
 * The session a record describes, as Session.restore takes it. One that was running when its
 * daemon died (and was not handed over) is `lost`, and what its program left running (nohup'ed
 * children, background jobs that outlived the hangup) dies now.
 */
export function fromRecord(
  r: SessionRecord,
  logDir: string,
  /** Its program runs on, handed over to this daemon (daemon/handover.ts): nothing is lost or ended. */
  adopted = false,
): { base: RecordedBase; run: PastRun; start: StartSettings } {
  const lost = r.state === "running" && !adopted;
  if (lost && r.pid !== null && r.pid_start) {
    const reaped = reapLeftovers(r.pid, r.pid_start);
    if (reaped > 0) console.error(`termd: session ${r.name}: ended ${reaped} processes its lost program left running`);
  }
  return {
    base: {
      id: r.id,
      name: r.name,
      command: r.command,
      cwd: r.cwd,
      createdAt: new Date(r.created_at),
      size: { rows: r.rows, cols: r.cols },
      scrollback: r.scrollback,
      term: r.term,
      logDir,
    },
    run: {
      state: lost ? "lost" : r.state,
      exitCode: r.exit_code,
      signal: r.signal,
      error: lost ? "the daemon ended while the program ran" : r.error,
      endedAt: r.ended_at ? new Date(r.ended_at) : new Date(),
      pid: r.pid,
      pidStart: r.pid_start ?? null,
    },
    start: { env: r.start_env ?? null, integrate: r.integrate ?? true },
  };
}
