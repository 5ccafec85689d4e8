import * as v from "valibot";
import { tool, text } from "../tool.ts";
import { Session } from "./params.ts";

export default tool({
  name: "submit",
  title: "Type text and press Enter",
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
    const r = await ctx.call("session.input", { session: p.session, text: p.text, submit: true });
    return text(`submitted ${JSON.stringify(p.text.length > 60 ? p.text.slice(0, 60) + "…" : p.text)} to ${p.session}; use wait_for to see the result`, { bytes: r.bytes });
  },
});
