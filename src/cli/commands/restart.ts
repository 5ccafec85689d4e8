import { bool, num, UsageError } from "../args.ts";
import { cliCommand, EXIT } from "../command.ts";
import { printJson } from "../format.ts";
import { statusOf } from "../../protocol/session-labels.ts";
import { sessionArg } from "./shared.ts";

export default cliCommand({
  name: "restart",
  summary: "run a session's command again in the same session",
  args: "SESSION",
  json: true,
  help: [
    "Runs the session's command again, with its cwd and environment, in the same session: its name, id, log,",
    "recording, clients and size stay, and a line in its output marks where the new run begins. A running",
    "session is stopped first.",
  ].join("\n"),
  flags: {
    grace: { kind: "number", value: "MS", help: "as termd stop's, for a running session" },
    "all-lost": {
      kind: "boolean",
      help: "instead of SESSION: restart every lost session (one whose daemon ended while it ran, as after a reboot)",
    },
  },
  async run(a, ctx) {
    const client = await ctx.client();
    let names: string[];
    if (bool(a, "all-lost")) {
      if (a.positional.length > 0) throw new UsageError("--all-lost goes without a session");
      names = (await client.call("session.list")).sessions.filter((s) => s.state === "lost").map((s) => s.id);
    } else names = [sessionArg(a)];
    const infos = [];
    for (const session of names) infos.push(await client.call("session.restart", { session, grace_ms: num(a, "grace") }));
    if (ctx.json) printJson(ctx, bool(a, "all-lost") ? infos : infos[0]);
    else for (const info of infos) ctx.out(`${info.name}: ${statusOf(info)}`);
    return EXIT.OK;
  },
});
