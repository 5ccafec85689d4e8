import * as v from "valibot";
import { SessionName } from "../../protocol/schemas.ts";
import { tool, text } from "../tool.ts";
import { screenText } from "../screen-text.ts";

export default tool({
  name: "start_session",
  title: "Start a terminal session",
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
  description: [
    "Starts a program (default: the user's shell) in a new persistent terminal session and returns its name and first screen.",
    "The session keeps running between calls until stop_session; a person can watch or take over with `termd attach NAME`.",
    "Use a shell session (bash) to run commands with run_command and wait_for command_done; start a TUI (vim, python3, an agent CLI) by naming it in `command`.",
  ].join(" "),
  params: v.object({
    name: v.optional(v.pipe(SessionName, v.description("A name to address it by (1-64 of A-Z a-z 0-9 _ . @ : + -, not starting with -, not . or ..); default: generated."))),
    command: v.optional(v.pipe(v.array(v.string()), v.minLength(1), v.description('The program and its arguments, e.g. ["bash"] or ["python3", "-q"]; default: the user\'s shell.'))),
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
    // The first screen once the program has drawn it (a shell's prompt), or what there is after 3 s.
    const w = await ctx.call("session.wait", { session: info.id, settle_ms: 200, timeout_ms: 3000 });
    ctx.lastRead.set(info.name, w.screen.seq);
    const state = w.outcome === "exited" ? ` It has already ended (exit code ${w.exit_code}).` : "";
    return text(`started session ${info.name} (id ${info.id}) running ${info.command.join(" ")} in ${info.cwd}.${state}\n${screenText(info.name, w.screen)}`, {
      name: info.name,
      id: info.id,
      command: info.command,
      state: w.outcome === "exited" ? "exited" : "running",
    });
  },
});
