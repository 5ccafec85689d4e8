import { UsageError } from "../args.ts";
import { cliCommand, EXIT } from "../command.ts";
import { printJson } from "../format.ts";
import { sessionArg } from "./shared.ts";

export default cliCommand({
  name: "resize",
  summary: "change a session's terminal size",
  args: "SESSION ROWS COLS|ROWSxCOLS",
  json: true,
  help: "Resizes the PTY (the program gets SIGWINCH) and the screen. The size is two numbers or one ROWSxCOLS word (24x80), as the README writes sizes.",
  flags: {},
  async run(a, ctx) {
    const joined = /^(\d+)x(\d+)$/i.exec(a.positional[1] ?? "");
    const session = sessionArg(a, joined ? 1 : 2);
    const [rows, cols] = (joined ? joined.slice(1, 3) : a.positional.slice(1, 3)).map(Number);
    if (!Number.isInteger(rows) || !Number.isInteger(cols) || rows! < 1 || cols! < 1) {
      throw new UsageError("give the size as ROWS COLS or ROWSxCOLS, whole numbers of at least 1 (e.g. 24 80 or 24x80)");
    }
    const r = await (await ctx.client()).call("session.resize", { session, rows: rows!, cols: cols! });
    if (ctx.json) printJson(ctx, r);
    return EXIT.OK;
  },
});
