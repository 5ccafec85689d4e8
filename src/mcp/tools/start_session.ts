import * as v from "valibot";
import { tool, text, type ToolContext } from "../tool.ts";
import { SessionName, type WaitResult } from "../../protocol/schemas.ts";
import { commandLine } from "../../protocol/session-labels.ts";
import { screenText } from "../screen-text.ts";

/** The longest start_session waits for a shell's first prompt. */
const READY_MS = 10_000;
/** The longest it waits for another program to show anything. */
const FIRST_SCREEN_MS = 5000;
/** A blank screen this long without a byte of output: a program that shows nothing until typed to (cat, a script's `read`), or a slow start. */
const BLANK_QUIET_MS = 1000;

/**
 * Ready for input: a shell with termd's hooks once its first prompt is drawn; any other program
 * once its screen shows something and then stays unchanged for 200 ms. A blank screen is not
 * ready, unless it stays blank and quiet for BLANK_QUIET_MS (outcome "settled": the reply says so).
 */
async function ready(ctx: ToolContext, session: string, shell: boolean): Promise<WaitResult> {
  if (shell) return ctx.call("session.wait", { session, prompt: true, timeout_ms: READY_MS });
  const started = performance.now();
  const first = await ctx.call("session.wait", { session, regex: "\\S", settle_ms: BLANK_QUIET_MS, timeout_ms: FIRST_SCREEN_MS });
  if (first.outcome !== "matched") return first;
  return ctx.call("session.wait", {
    session,
    settle_ms: 200,
    timeout_ms: Math.max(1, Math.round(FIRST_SCREEN_MS - (performance.now() - started))),
  });
}

export default tool({
  name: "start_session",
  title: "Start a terminal session",
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
  description: [
    "Starts a program (default: the user's shell) in a new persistent terminal session and returns its name and first screen once it is ready for input:",
    "a shell once it drew its first prompt (shell integration), another program once its screen settled after its first output.",
    "The session keeps running between calls until stop_session; a person can watch or take over with `termd attach NAME`.",
    "Use a shell session (bash) to run commands with run_command and wait_for command_done; start a TUI (vim, python3, an agent CLI) by naming it in `command`.",
  ].join(" "),
  params: v.object({
    name: v.optional(
      v.pipe(
        SessionName,
        v.description("A name to address it by (1-64 of A-Z a-z 0-9 _ . @ : + -, not starting with -, not . or ..); default: generated."),
      ),
    ),
    command: v.optional(
      v.pipe(
        v.array(v.string()),
        v.minLength(1),
        v.description('The program and its arguments, e.g. ["bash"] or ["python3", "-q"]; default: the user\'s shell.'),
      ),
    ),
    cwd: v.optional(v.pipe(v.string(), v.description("Working directory; default: where the MCP server runs (the project)."))),
    env: v.optional(v.pipe(v.record(v.string(), v.string()), v.description("Extra environment variables."))),
    rows: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(1000), v.description("Screen rows (default 24)."))),
    cols: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(1000), v.description("Screen columns (default 80)."))),
  }),
  async run(p, ctx) {
    const info = await ctx.call("session.create", {
      name: p.name,
      command: p.command,
      cwd: p.cwd ?? process.cwd(),
      env: p.env,
      rows: p.rows,
      cols: p.cols,
      meta: { owner: ctx.owner },
    });
    const w = await ready(ctx, info.id, info.shell_integration !== null);
    ctx.lastRead.set(info.name, w.screen.seq);
    const state =
      w.outcome === "exited"
        ? ` It has already ended (exit code ${w.exit_code}).`
        : w.outcome === "timeout"
          ? ` It did not show it was ready (${info.shell_integration ? `no prompt within ${READY_MS / 1000} s` : `its screen still changing after ${FIRST_SCREEN_MS / 1000} s`}): wait_for what you expect before typing.`
          : w.outcome === "settled" && w.screen.lines.every((l) => l.trim() === "")
            ? ` Its screen is blank and it has been quiet for ${BLANK_QUIET_MS / 1000} s: it may wait for input without a prompt (cat), or be slow to start; wait_for what you expect before typing.`
            : "";
    return text(
      `started session ${info.name} (id ${info.id}) running ${commandLine(info.command)} in ${info.cwd}.${state}\n${screenText(info.name, w.screen)}`,
      {
        name: info.name,
        id: info.id,
        command: info.command,
        state: w.outcome === "exited" ? "exited" : "running",
      },
    );
  },
});
