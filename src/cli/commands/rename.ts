import { UsageError } from "../args.ts";
import { cliCommand, EXIT } from "../command.ts";
import { printJson } from "../format.ts";
import { sessionArg } from "./shared.ts";

export default cliCommand({
  name: "rename",
  summary: "give a session a new name",
  args: "SESSION NEW",
  json: true,
  help: "Renames the session (session.rename): its id, output, recording and clients stay; the old name is free at once.",
  flags: {},
  async run(a, ctx) {
    const session = sessionArg(a, 1);
    const name = a.positional[1];
    if (name === undefined) throw new UsageError("give the new name: termd rename SESSION NEW");
    const r = await (await ctx.client()).call("session.rename", { session, name });
    if (ctx.json) printJson(ctx, r);
    return EXIT.OK;
  },
});
