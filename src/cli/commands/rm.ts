import { bool } from "../args.ts";
import { cliCommand, EXIT } from "../command.ts";
import { printJson } from "../format.ts";
import { sessionArg } from "./shared.ts";

export default cliCommand({
  name: "rm",
  summary: "forget an ended session",
  args: "SESSION",
  json: true,
  help: "Removes an ended session with its screen and output.",
  flags: { force: { kind: "boolean", short: "f", help: "stop a running session first" } },
  async run(a, ctx) {
    const r = await (await ctx.client()).call("session.remove", { session: sessionArg(a), force: bool(a, "force") });
    if (ctx.json) printJson(ctx, r);
    return EXIT.OK;
  },
});
