import * as v from "valibot";
import { tool, text } from "../tool.ts";
import { commandLine, ownerOf, statusOf } from "../../protocol/session-labels.ts";

export default tool({
  name: "list_sessions",
  title: "List sessions",
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  description:
    "Lists the daemon's terminal sessions: name, state, command, owner (the agent or person that started it), who holds it if a person took it over (it takes no input from you until given back), size, title.",
  params: v.object({}),
  async run(_p, ctx) {
    const { sessions } = await ctx.call("session.list");
    if (sessions.length === 0) return text("no sessions; start one with start_session", { sessions: [] });
    const rows = sessions.map((s) => {
      const owner = ownerOf(s) ?? "-";
      const state = statusOf(s);
      return {
        name: s.name,
        id: s.id,
        state,
        command: commandLine(s.command),
        owner,
        size: `${s.size.rows}x${s.size.cols}`,
        title: s.title,
        mine: owner === ctx.owner,
        held_by: s.held_by,
      };
    });
    const body = rows.map(
      (r) =>
        `${r.name}  ${r.state}${r.held_by ? ` (held by ${r.held_by}: a person took it over)` : ""}  owner ${r.owner}${r.mine ? " (you)" : ""}  ${r.size}  ${r.command}${r.title ? `  title ${JSON.stringify(r.title)}` : ""}`,
    );
    return text(body.join("\n"), { sessions: rows });
  },
});
