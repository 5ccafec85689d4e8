import { num } from "../args.ts";
import { cliCommand, EXIT } from "../command.ts";
import { printJson } from "../format.ts";
import { statusOf } from "../../protocol/session-labels.ts";
import { sessionArg } from "./shared.ts";

export default cliCommand({
  name: "stop",
  summary: "stop every process of a session (SIGHUP and SIGTERM, then SIGKILL)",
  args: "SESSION",
  json: true,
  help: "Sends SIGHUP and SIGTERM to every process of the session's terminal, waits, then SIGKILL to what is left; prints the final state.",
  flags: { grace: { kind: "number", value: "MS", help: "how long to wait before SIGKILL (default: the daemon's, 5000)" } },
  async run(a, ctx) {
    const info = await (await ctx.client()).call("session.stop", { session: sessionArg(a), grace_ms: num(a, "grace") });
    if (ctx.json) printJson(ctx, info);
    else ctx.out(statusOf(info));
    return EXIT.OK;
  },
});
