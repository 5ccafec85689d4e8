// A session as session.info, session.list and every reply that returns a session show it: who it
// is, how its program runs or ended, and what the stream, the shell and the clients make of it now.
import type { SessionInfo } from "../protocol/schemas.ts";
import type { Session } from "../session/session.ts";
import { runOf } from "../session/record.ts";

export function infoOf(s: Session): SessionInfo {
  const { exec, hold } = s;
  const { tap, output } = s.stream;
  return {
    ...runOf(s),
    scrollback: s.stream.scrollback,
    term: s.term,
    ...(s.error ? { error: s.error } : {}),
    size: s.stream.size,
    title: tap.title,
    current_cwd: tap.cwd,
    modes: tap.modes,
    bells: tap.bells,
    last_exit_code: tap.lastExitCode,
    shell_integration: s.shellIntegration,
    running_command: tap.running && s.running ? { command: tap.running.command, started_at: tap.running.since } : null,
    bytes_out: output.end,
    ...(output.error ? { log_error: output.error } : {}),
    ...(s.socket ? { socket: s.socket } : {}),
    busy: exec.busy,
    held_by: hold.info?.held_by ?? null,
    held_since: hold.info?.held_since ?? null,
    commands_run: exec.count,
    last_command_at: exec.lastAt?.toISOString() ?? null,
    ...(s.meta ? { meta: s.meta } : {}),
  };
}
