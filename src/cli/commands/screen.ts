import { bool, num } from "../args.ts";
import { cliCommand, EXIT } from "../command.ts";
import { printJson } from "../format.ts";
import { sessionArg } from "./shared.ts";

export default cliCommand({
  name: "screen",
  summary: "print what a session's screen shows",
  usage: "termd screen SESSION [--ansi] [--scrollback N] [--cursor] [--json]",
  help: "Prints the screen as text (cells the program never wrote trimmed), or with colours and attributes (--ansi).\n--scrollback N adds up to N lines from above the screen; --cursor adds the cursor position and hash.",
  flags: { ansi: { kind: "boolean" }, scrollback: { kind: "number" }, cursor: { kind: "boolean" } },
  async run(a, ctx) {
    const snap = await (await ctx.client()).call("session.screen", {
      session: sessionArg(a),
      format: bool(a, "ansi") ? "ansi" : "text",
      scrollback: num(a, "scrollback"),
    });
    if (ctx.json) printJson(ctx, snap);
    else {
      ctx.out(bool(a, "ansi") ? snap.ansi! : snap.lines.join("\n"));
      if (bool(a, "cursor")) ctx.out(`cursor ${snap.cursor.row},${snap.cursor.col}${snap.cursor.visible ? "" : " hidden"}  hash ${snap.hash}`);
    }
    return EXIT.OK;
  },
});
