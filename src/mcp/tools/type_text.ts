import * as v from "valibot";
import { tool, text } from "../tool.ts";
import { Session } from "./params.ts";

export default tool({
  name: "type_text",
  title: "Type text",
  annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
  description:
    "Types text into the session as if on a keyboard, without pressing Enter. To send a line or a prompt and press Enter, use submit; for Enter, Ctrl+C, arrows and other keys use press_keys.",
  params: v.object({
    session: Session,
    text: v.pipe(v.string(), v.minLength(1), v.description("The text, typed as is.")),
  }),
  async run(p, ctx) {
    ctx.typedInto.add(p.session);
    // Text ending in a line end went as a line; anything else is still on the input line.
    if (/[\r\n]$/.test(p.text)) ctx.pendingLine.delete(p.session);
    else ctx.pendingLine.set(p.session, (ctx.pendingLine.get(p.session) ?? "") + p.text.split(/[\r\n]/).at(-1));
    const r = await ctx.call("session.input", { session: p.session, text: p.text });
    return text(`typed ${r.bytes} bytes into ${p.session}`);
  },
});
