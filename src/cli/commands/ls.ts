import { cliCommand, EXIT } from "../command.ts";
import { printJson, table } from "../format.ts";
import { commandLine, ownerOf, statusOf } from "../../protocol/session-labels.ts";
import { noMoreArgs } from "./shared.ts";

export default cliCommand({
  name: "ls",
  summary: "list sessions",
  json: true,
  help: "Lists every session the daemon knows, running or ended. OWNER is who started it: an agent through termd mcp (mcp:NAME), or the owner, agent or client a tool put in the session's meta; else -.",
  flags: {},
  async run(a, ctx) {
    noMoreArgs(a);
    const { sessions } = await (await ctx.client()).call("session.list");
    if (ctx.json) printJson(ctx, sessions);
    else if (sessions.length === 0) ctx.out("no sessions");
    else {
      // A loop, not map: see format.ts's table.
      const rows = [["NAME", "ID", "STATE", "PID", "OWNER", "SIZE", "COMMAND"]];
      for (const s of sessions)
        rows.push([
          s.name,
          s.id,
          statusOf(s),
          String(s.pid ?? "-"),
          ownerOf(s) ?? "-",
          `${s.size.rows}x${s.size.cols}`,
          commandLine(s.command),
        ]);
      ctx.out(table(rows));
    }
    return EXIT.OK;
  },
});
