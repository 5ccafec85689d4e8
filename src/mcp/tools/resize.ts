import * as v from "valibot";
import { tool, text } from "../tool.ts";
import { Session } from "./params.ts";

const Dim = (what: string) => v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(1000), v.description(what));

export default tool({
  name: "resize",
  title: "Resize the terminal",
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description:
    "Sets the session's terminal size in rows and columns; the program gets SIGWINCH and redraws (wait_for idle_ms to see it). For wide tables, long log lines, or a TUI that needs room.",
  params: v.object({ session: Session, rows: Dim("Rows (1-1000)."), cols: Dim("Columns (1-1000).") }),
  async run(p, ctx) {
    const r = await ctx.call("session.resize", { session: p.session, rows: p.rows, cols: p.cols });
    return text(`${p.session} is now ${r.size.rows}x${r.size.cols}; use wait_for idle_ms to let the program redraw`, { size: r.size });
  },
});
