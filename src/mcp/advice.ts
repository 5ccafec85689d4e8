// The one place where a failed tool call becomes a result an agent can act on: the daemon's
// error, reworded to say what to do next (which sessions exist, which tool to use instead).
import { RpcError } from "../protocol/errors.ts";
import type { SessionInfo } from "../protocol/schemas.ts";
import { ToolError, type ToolContext, type ToolResult } from "./tool.ts";

function names(sessions: SessionInfo[]): string {
  const running = sessions.filter((s) => s.state === "running").map((s) => s.name);
  return running.length > 0 ? `running sessions: ${running.join(", ")}` : "no session is running";
}

async function sessionsLine(ctx: ToolContext): Promise<string> {
  try {
    return names((await ctx.call("session.list")).sessions);
  } catch {
    return "the session list could not be read";
  }
}

/** What went wrong and what to do next, for an error thrown by a tool's run. */
export async function advise(err: unknown, ctx: ToolContext, session: string | undefined): Promise<string> {
  if (err instanceof ToolError) return err.message;
  if (!(err instanceof RpcError)) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ECONNREFUSED")
      return `the termd daemon does not answer (${(err as Error).message}); the next call starts it again`;
    return `termd failed: ${(err as Error).message}`;
  }
  const who = session ?? String(err.details.session ?? "");
  switch (err.name) {
    case "SESSION_NOT_FOUND":
      return `no session named ${who}; ${await sessionsLine(ctx)}; start one with start_session`;
    case "SESSION_NOT_RUNNING":
      return `session ${who} has ended (${err.message}); its last screen is still readable with read_screen; start a new one with start_session`;
    case "NAME_TAKEN":
      return `${err.message}; pick another name, or stop_session that one first (with remove: true to free its name)`;
    case "NOT_A_SHELL":
      return `${err.message}: run_command needs a session running a POSIX shell (start_session with command ["bash"]); in this session type with type_text or submit instead`;
    case "SESSION_BUSY":
      return `${err.message}; wait for it with wait_for (command_done or idle_ms), or interrupt it with press_keys ["Ctrl+C"]`;
    case "SESSION_HELD": {
      const by = String(err.details.held_by ?? "a person");
      const since = err.details.held_since ? ` since ${err.details.held_since}` : "";
      return (
        `a person (${by}) has taken over session ${who}${since}, so it takes no input or commands from you until they give it back. ` +
        `Do not work around it: wait, e.g. wait_for with idle_ms, then list_sessions, until ${who} is no longer "held by" anyone; then read_screen (they may have changed it) and go on. ` +
        `Reading it (read_screen, screenshot, wait_for) still works`
      );
    }
    case "INPUT_NOT_READ":
      return `${err.message}: the program is not reading its input; look at read_screen, or press_keys ["Ctrl+C"]`;
    case "MOUSE_NOT_ENABLED":
      return `${err.message}: this program does not take mouse input here; use press_keys (arrows, Tab, Enter) instead`;
    case "INVALID_PARAMS": {
      const issues = (err.details.issues as { path?: string; message: string }[] | undefined) ?? [];
      const detail = issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; ");
      return `invalid arguments: ${detail || err.message}`;
    }
    default:
      return `${err.name}: ${err.message}`;
  }
}

export function errorResult(message: string): ToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}
