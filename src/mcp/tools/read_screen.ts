import * as v from "valibot";
import { tool, text } from "../tool.ts";
import { changesText, screenText } from "../screen-text.ts";
import { Session } from "./params.ts";

export default tool({
  name: "read_screen",
  title: "Read the screen",
  annotations: { readOnlyHint: true, openWorldHint: false },
  description: [
    "Returns the session's screen as text: rows numbered from 0, the cursor marked with ▮ where it is, blank rows at the bottom summed up.",
    "With changes_only, only the rows that changed since your last read_screen of this session (cheap polling of a big screen).",
    "With scrollback, that many lines from above the screen come first, numbered negative.",
  ].join(" "),
  params: v.object({
    session: Session,
    changes_only: v.optional(
      v.pipe(v.boolean(), v.description("Only rows changed since your last read of this session (the first read gives all).")),
    ),
    scrollback: v.optional(
      v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(10_000), v.description("Lines of scrollback above the screen to include.")),
    ),
  }),
  async run(p, ctx) {
    const since = ctx.lastRead.get(p.session);
    if (p.changes_only && since !== undefined && !p.scrollback) {
      const s = await ctx.call("session.screen", { session: p.session, since_seq: since });
      ctx.lastRead.set(p.session, s.seq);
      return text(changesText(p.session, since, s), { seq: s.seq, changed: s.changed ?? [], cursor: s.cursor });
    }
    const s = await ctx.call("session.screen", { session: p.session, scrollback: p.scrollback });
    ctx.lastRead.set(p.session, s.seq);
    return text(screenText(p.session, s), { seq: s.seq, cursor: s.cursor, size: s.size, title: s.title });
  },
});
