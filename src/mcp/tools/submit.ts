import * as v from "valibot";
import { ToolError, tool, text } from "../tool.ts";
import { screenReply } from "../screen-reply.ts";
import { unsentLine } from "../unsent-line.ts";
import { enterNote } from "../../protocol/submit-notes.ts";
import { PROMPT_AFTER_MS } from "../../protocol/wait-limits.ts";
import { Session, ShowChange, showChangeWait } from "./params.ts";

/** What clears a shell's input line, whatever the cursor's place in it: end of line, then kill back to its start (bash, zsh, fish). */
const KILL_LINE = ["Ctrl+E", "Ctrl+U"];

export default tool({
  name: "submit",
  title: "Type text and press Enter",
  annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
  description: [
    "Types text and presses Enter safely: the text goes in first (typed; as a bracketed paste when it has several lines and the program asked for that),",
    "Enter follows only once the screen settled with the text shown and at least 150 ms later, so agent TUIs",
    "(Claude Code, Codex, Gemini CLI) submit it instead of taking Enter as a newline. The way to run a command at a shell prompt,",
    "answer a REPL or send a prompt to an agent. Text left on the input line would be sent with it: at a shell's prompt (shell integration)",
    "the line is cleared first (Ctrl+E Ctrl+U); elsewhere, if text you typed with type_text is still on an input line (not in full-screen programs such as vim), submit refuses and says so.",
    "clear_line: false turns both off (to finish a line you began with type_text). Follow with wait_for, or pass show_change to get the result in this call.",
  ].join(" "),
  params: v.object({
    session: Session,
    text: v.pipe(v.string(), v.description("The line or prompt, without a trailing newline (may be empty: Enter alone).")),
    clear_line: v.optional(
      v.pipe(
        v.boolean(),
        v.description(
          "Default true: clear a shell's input line first, refuse where text you typed is still on the line. false: type onto whatever is there.",
        ),
      ),
    ),
    ...ShowChange,
  }),
  async run(p, ctx) {
    const notes: string[] = [];
    if (p.clear_line !== false) {
      const info = await ctx.call("session.info", { session: p.session });
      if (info.shell_integration !== null && info.running_command === null) {
        // The prompt the shell is at, or the next one when it has just finished a command (since 0:
        // any prompt still on its line counts): judged before that, the line is whatever the last
        // command left, and the keys would land before the prompt. Past PROMPT_AFTER_MS (the
        // daemon's own bound on such a prompt), or at once from a shell that marks no prompts, the
        // screen there is.
        const { screen } = await ctx.call("session.wait", { session: info.id, prompt: true, since: 0, timeout_ms: PROMPT_AFTER_MS });
        const beforeCursor = [...(screen.lines[screen.cursor.row] ?? "")].slice(0, screen.cursor.col).join("");
        const afterCursor = [...(screen.lines[screen.cursor.row] ?? "")].slice(screen.cursor.col).join("").trim();
        await ctx.call("session.input", { session: info.id, keys: KILL_LINE });
        if (afterCursor !== "" || !/[$#%>❯]\s*$/.test(beforeCursor)) notes.push("text left on the shell's input line was cleared first");
      } else if (ctx.pendingLine.has(p.session)) {
        // The screen once the echo of what was typed has come back (it decides).
        const { screen } = await ctx.call("session.wait", { session: p.session, settle_ms: 100, timeout_ms: 2000 });
        const takeBack = unsentLine(screen, ctx.pendingLine.get(p.session)!);
        if (takeBack !== null)
          throw new ToolError(
            `text you typed into ${p.session} with type_text was never sent and is still on its input line, so submit would add to it. ` +
              `press_keys ["Enter"] sends it as it is; ${takeBack}; or submit with clear_line: false to add this text to it`,
          );
      }
    }
    ctx.typedInto.add(p.session);
    ctx.pendingLine.delete(p.session);
    const r = await ctx.call("session.input", { session: p.session, text: p.text, submit: true, wait: showChangeWait(p) });
    if (r.submit && !r.submit.shown && p.text.trim() !== "")
      notes.push("the text never showed on the screen (a prompt without echo, or the program was busy): Enter went after 3 s anyway");
    const enter = r.submit && r.submit.enter_presses > 0 ? enterNote(r.submit) : null;
    if (enter) notes.push(enter);
    const what = JSON.stringify(p.text.length > 60 ? p.text.slice(0, 60) + "…" : p.text);
    const done = `submitted ${what} to ${p.session}${notes.length ? `; ${notes.join("; ")}` : ""}`;
    const body = r.wait ? `${done}; then:\n${await screenReply(ctx, p.session, r.wait.screen)}` : `${done}; use wait_for to see the result`;
    return text(body, { bytes: r.bytes, ...r.submit });
  },
});
