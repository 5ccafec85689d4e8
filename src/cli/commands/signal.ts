import { UsageError } from "../args.ts";
import { cliCommand, EXIT } from "../command.ts";
import { printJson } from "../format.ts";
import { sessionArg } from "./shared.ts";

export default cliCommand({
  name: "signal",
  summary: "send a signal to a session's program",
  usage: "termd signal SESSION SIGNAL [--json]",
  help: "SIGNAL is a name (SIGINT, INT, int) or a number (2).",
  flags: {},
  async run(a, ctx) {
    const session = sessionArg(a, 1);
    const signal = a.positional[1];
    if (signal === undefined) throw new UsageError("name the signal, e.g. INT or 15");
    const r = await (await ctx.client()).call("session.signal", { session, signal });
    if (ctx.json) printJson(ctx, r);
    return EXIT.OK;
  },
});
