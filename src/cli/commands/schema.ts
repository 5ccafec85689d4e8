// termd schema: the JSON Schema of every native method's params, for agents and tools that speak
// the socket directly. Generated from the very valibot schemas the daemon validates with.
import { cliCommand, EXIT } from "../command.ts";
import { UsageError } from "../args.ts";
import { noMoreArgs } from "./shared.ts";

export default cliCommand({
  name: "schema",
  summary: "print the JSON Schema of every native method's params",
  args: "[METHOD]",
  help: [
    'Prints {"METHOD": {JSON Schema of its params}, …} for every native JSON-RPC method (draft-07),',
    'or one method\'s schema. Checks across fields ("exactly one of text, keys, paste, base64") have',
    "no JSON Schema form: the daemon still enforces them and says so in INVALID_PARAMS.",
  ].join("\n"),
  flags: {},
  async run(a, ctx) {
    noMoreArgs(a, 1);
    // Loaded when used: the method table brings the whole daemon with it.
    const [{ COMMANDS }, { jsonSchemaOf }] = await Promise.all([
      import("../../server/methods.ts"),
      import("../../protocol/json-schema.ts"),
    ]);
    const [only] = a.positional;
    if (only !== undefined) {
      const c = COMMANDS.get(only);
      if (!c) throw new UsageError(`no method ${only}; the methods are: ${[...COMMANDS.keys()].join(", ")}`);
      ctx.out(JSON.stringify(jsonSchemaOf(c.params), null, 2));
      return EXIT.OK;
    }
    const all = Object.fromEntries([...COMMANDS.values()].map((c) => [c.name, jsonSchemaOf(c.params)]));
    ctx.out(JSON.stringify(all, null, 2));
    return EXIT.OK;
  },
});
