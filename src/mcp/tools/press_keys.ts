import * as v from "valibot";
import { tool, text } from "../tool.ts";
import { screenReply } from "../screen-reply.ts";
import { Session, ShowChange, showChangeWait } from "./params.ts";

/** Keys that send or drop the input line: after them no typed text is left on it. */
const LINE_ENDERS = /^(enter|return|<cr>|ctrl\+[cu]|c-[cu]|<c-[cu]>)$/i;

export default tool({
  name: "press_keys",
  title: "Press keys",
  annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
  description: [
    "Presses keys in order, encoded the way the program expects (application cursor keys, kitty keyboard protocol).",
    "Key names: Enter Escape Tab Backspace Delete Insert Space Up Down Left Right Home End PageUp PageDown F1-F12,",
    "with modifiers Ctrl+C Alt+x Shift+Tab Shift+Enter Ctrl+Alt+Delete; tmux (C-c, M-x) and vim (<C-c>, <CR>, <Esc>) names work too.",
    'A single printable character is that character ("y", "q", ":"). Use type_text for words.',
  ].join(" "),
  params: v.object({
    session: Session,
    keys: v.pipe(
      v.array(v.pipe(v.string(), v.minLength(1))),
      v.minLength(1),
      v.description('Key names, e.g. ["Escape", ":", "w", "q", "Enter"] or ["Ctrl+C"].'),
    ),
    ...ShowChange,
  }),
  async run(p, ctx) {
    ctx.typedInto.add(p.session);
    if (p.keys.some((k) => LINE_ENDERS.test(k))) ctx.pendingLine.delete(p.session);
    const r = await ctx.call("session.input", { session: p.session, keys: p.keys, wait: showChangeWait(p) });
    const done = `pressed ${p.keys.join(" ")} in ${p.session} (${r.bytes} bytes)`;
    return text(r.wait ? `${done}; then:\n${await screenReply(ctx, p.session, r.wait.screen)}` : done);
  },
});
