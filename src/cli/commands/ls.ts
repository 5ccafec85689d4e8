import { UsageError } from "../args.ts";
import { cliCommand, EXIT } from "../command.ts";
import { ownerOf, printJson, statusOf, table } from "../format.ts";

export default cliCommand({
  name: "ls",
  summary: "list sessions",
  usage: "termd ls [--json]",
  help: "Lists every session the daemon knows, running or ended. OWNER is who started it: an agent through termd mcp (mcp:NAME), else -.",
  flags: {},
  async run(a, ctx) {
    if (a.positional.length > 0) throw new UsageError(`unexpected argument ${a.positional[0]}`);
    const { sessions } = await (await ctx.client()).call("session.list");
    if (ctx.json) printJson(ctx, sessions);
    else if (sessions.length === 0) ctx.out("no sessions");
    else
      ctx.out(
        table([
          ["NAME", "ID", "STATE", "PID", "OWNER", "SIZE", "COMMAND"],
          ...sessions.map((s) => [s.name, s.id, statusOf(s), String(s.pid ?? "-"), ownerOf(s), `${s.size.rows}x${s.size.cols}`, s.command.join(" ")]),
        ]),
      );
    return EXIT.OK;
  },
});
