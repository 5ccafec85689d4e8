import { UsageError } from "../args.ts";
import { cliCommand, EXIT } from "../command.ts";
import { printJson } from "../format.ts";
import { sessionArg } from "./shared.ts";

export default cliCommand({
  name: "resize",
  summary: "change a session's terminal size",
  usage: "termd resize SESSION ROWS COLS [--json]",
  help: "Resizes the PTY (the program gets SIGWINCH) and the screen.",
  flags: {},
  async run(a, ctx) {
    const session = sessionArg(a, 2);
    const [rows, cols] = a.positional.slice(1).map(Number);
    if (!Number.isInteger(rows) || !Number.isInteger(cols)) throw new UsageError("give ROWS and COLS as whole numbers");
    const r = await (await ctx.client()).call("session.resize", { session, rows: rows!, cols: cols! });
    if (ctx.json) printJson(ctx, r);
    return EXIT.OK;
  },
});
