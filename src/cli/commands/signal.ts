import { bool, UsageError } from "../args.ts";
import { cliCommand, EXIT } from "../command.ts";
import { printJson } from "../format.ts";
import { sessionArg } from "./shared.ts";

export default cliCommand({
  name: "signal",
  summary: "send a signal to a session's program, its foreground job, or all of its processes",
  args: "SESSION SIGNAL",
  json: true,
  help: "SIGNAL is a name (SIGINT, INT, int) or a number (2). By default it goes to the session's program (a shell, say).",
  flags: {
    foreground: {
      kind: "boolean",
      help: "to the terminal's foreground process group instead: the job a shell is running, as Ctrl-C would",
    },
    all: { kind: "boolean", help: "to every process of the terminal's session instead, background jobs included" },
  },
  async run(a, ctx) {
    const session = sessionArg(a, 1);
    const signal = a.positional[1];
    if (signal === undefined) throw new UsageError("name the signal, e.g. INT or 15");
    if (bool(a, "foreground") && bool(a, "all")) throw new UsageError("give --foreground or --all, not both");
    const target = bool(a, "all") ? "session" : bool(a, "foreground") ? "foreground" : "program";
    const r = await (await ctx.client()).call("session.signal", { session, signal, target });
    if (ctx.json) printJson(ctx, r);
    return EXIT.OK;
  },
});
