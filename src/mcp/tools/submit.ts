import * as v from "valibot";
import { tool, text } from "../tool.ts";
import { Session } from "./params.ts";

export default tool({
  name: "submit",
  title: "Type text and press Enter",
  annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
  description: [
    "Types text and presses Enter safely: the text goes in first (as a bracketed paste when the program asked for that),",
    "Enter follows only once the screen settled with the text shown and at least 150 ms later, so agent TUIs",
    "(Claude Code, Codex, Gemini CLI) submit it instead of taking Enter as a newline. The way to run a command at a shell prompt,",
    "answer a REPL or send a prompt to an agent. Follow with wait_for to see the result.",
  ].join(" "),
  params: v.object({
    session: Session,
    text: v.pipe(v.string(), v.description("The line or prompt, without a trailing newline (may be empty: Enter alone).")),
  }),
  async run(p, ctx) {
    ctx.typedInto.add(p.session);
    const r = await ctx.call("session.input", { session: p.session, text: p.text, submit: true });
    const notes: string[] = [];
    if (r.submit && !r.submit.shown && p.text.trim() !== "") notes.push("the text never showed on the screen (a prompt without echo, or the program was busy): Enter went after 3 s anyway");
    if (r.submit?.enter_presses === 2) notes.push("the first Enter changed nothing on the screen, so Enter was pressed once more");
    const what = JSON.stringify(p.text.length > 60 ? p.text.slice(0, 60) + "…" : p.text);
    return text(`submitted ${what} to ${p.session}${notes.length ? `; ${notes.join("; ")}` : ""}; use wait_for to see the result`, { bytes: r.bytes, ...r.submit });
  },
});
