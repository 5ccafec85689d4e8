import { cliCommand, EXIT } from "../command.ts";
import { describeSession, printJson } from "../format.ts";
import { sessionArg } from "./shared.ts";

export default cliCommand({
  name: "info",
  summary: "show one session",
  args: "SESSION",
  json: true,
  help: "Shows a session's state, exit code or signal, pid, command, size and title.",
  flags: {},
  async run(a, ctx) {
    const info = await (await ctx.client()).call("session.info", { session: sessionArg(a) });
    if (ctx.json) printJson(ctx, info);
    else ctx.out(describeSession(info));
    return EXIT.OK;
  },
});
