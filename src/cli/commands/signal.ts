import { bool, UsageError } from "../args.ts";
import { cliCommand, EXIT } from "../command.ts";
import { printJson } from "../format.ts";
import { sessionArg } from "./shared.ts";

export default cliCommand({
  name: "signal",
  summary: "send a signal to a session's program, its foreground job, or all of its processes",
  usage: "termd signal SESSION SIGNAL [--foreground | --all] [--json]",
  help: [
    "SIGNAL is a name (SIGINT, INT, int) or a number (2). By default it goes to the session's",
    "program (a shell, say); with --foreground to the terminal's foreground process group, the",
    "job a shell is running, as Ctrl-C would; with --all to every process of the terminal's",
    "session, background jobs included.",
  ].join("\n"),
  flags: { foreground: { kind: "boolean" }, all: { kind: "boolean" } },
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
