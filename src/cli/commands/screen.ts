import { bool, num } from "../args.ts";
import { cliCommand, EXIT } from "../command.ts";
import { printJson, rowsText } from "../format.ts";
import { sessionArg } from "./shared.ts";

export default cliCommand({
  name: "screen",
  summary: "print what a session's screen shows",
  args: "SESSION",
  json: true,
  help: "Prints the screen as text (cells the program never wrote trimmed), or with colours and attributes (--ansi).",
  flags: {
    ansi: { kind: "boolean", help: "as a stream that redraws the screen on a terminal: modes, alternate screen, colours" },
    scrollback: { kind: "number", help: "add up to N lines from above the screen (all of them, read in pages when they are many)" },
    cursor: { kind: "boolean", help: "add the cursor position and the screen's hash" },
  },
  async run(a, ctx) {
    // All the scrollback asked for, in as many pages as its size takes.
    const snap = await (await ctx.client()).screen({
      session: sessionArg(a),
      format: bool(a, "ansi") ? "ansi" : "text",
      scrollback: num(a, "scrollback"),
    });
    if (ctx.json) printJson(ctx, snap);
    else {
      ctx.out(bool(a, "ansi") ? snap.ansi! : rowsText(snap.lines));
      if (bool(a, "cursor"))
        ctx.out(`cursor ${snap.cursor.row},${snap.cursor.col}${snap.cursor.visible ? "" : " hidden"}  hash ${snap.hash}`);
    }
    return EXIT.OK;
  },
});
