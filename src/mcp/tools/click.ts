import * as v from "valibot";
import { tool, text } from "../tool.ts";
import { Session } from "./params.ts";

const Row = v.pipe(v.number(), v.integer(), v.minValue(0), v.description("Screen row, 0-based (the row numbers read_screen prints)."));
const Col = v.pipe(v.number(), v.integer(), v.minValue(0), v.description("Screen column, 0-based."));

export default tool({
  name: "click",
  title: "Click with the mouse",
  annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
  description: [
    "Clicks (or double-clicks, scrolls the wheel, drags) at a screen cell, as a terminal's mouse would: for TUIs that turned mouse reporting on",
    "(htop, mc, lazygit, vim with mouse=a). Rows and columns count from 0, as read_screen numbers them.",
    "A program that did not ask for the mouse gets an error saying so: use press_keys instead.",
  ].join(" "),
  params: v.object({
    session: Session,
    row: Row,
    col: Col,
    button: v.optional(v.pipe(v.picklist(["left", "middle", "right"]), v.description("Default left."))),
    count: v.optional(
      v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(10), v.description("2 for a double click; with scroll, wheel notches.")),
    ),
    scroll: v.optional(v.pipe(v.picklist(["up", "down"]), v.description("Turn the wheel instead of clicking."))),
    drag_to: v.optional(
      v.pipe(v.object({ row: Row, col: Col }), v.description("Press at row/col, move here with the button held, release.")),
    ),
  }),
  async run(p, ctx) {
    const at = { row: p.row, col: p.col };
    const mouse = p.scroll
      ? { action: "scroll" as const, ...at, direction: p.scroll, count: p.count }
      : p.drag_to
        ? { action: "drag" as const, from: at, to: p.drag_to, button: p.button }
        : { action: "click" as const, ...at, button: p.button, count: p.count };
    ctx.typedInto.add(p.session);
    await ctx.call("session.input", { session: p.session, mouse });
    const what = p.scroll
      ? `scrolled ${p.scroll}`
      : p.drag_to
        ? `dragged to row ${p.drag_to.row}, col ${p.drag_to.col} from`
        : `${p.count === 2 ? "double-" : ""}clicked ${p.button ?? "left"}`;
    return text(`${what} at row ${p.row}, col ${p.col} in ${p.session}; use read_screen or wait_for to see what it did`);
  },
});
