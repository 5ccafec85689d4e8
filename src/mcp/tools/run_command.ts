import * as v from "valibot";
import { tool, text } from "../tool.ts";
import { plainText } from "../../terminal/plain-text.ts";
import { Session } from "./params.ts";

/** Each of stdout and stderr given back in full up to this many characters; past it, the head and the tail (the reply stays under MAX_REPLY_CHARS). */
const MAX_SHOWN = 7_000;

/** Output meant for a terminal (colours, `clear`, a progress bar's CRs) as the text it shows. */
function asText(s: string): string {
  return /[\x1b\b\r]/.test(s) ? plainText(new TextEncoder().encode(s)) : s;
}

function clip(s: string): string {
  if (s.length <= MAX_SHOWN) return s;
  const half = MAX_SHOWN / 2;
  return `${s.slice(0, half)}\n… ${s.length - MAX_SHOWN} characters left out …\n${s.slice(-half)}`;
}

export default tool({
  name: "run_command",
  title: "Run a command in a shell session",
  annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
  description: [
    "Runs a shell command inside a shell session (bash, sh, zsh…) and returns its exit code, stdout and stderr, apart, once the shell is back at its prompt.",
    "It runs in the live shell, so cd, export and functions carry over to later commands and to what a person sees with termd attach;",
    "in bash and zsh the command shows on the session's screen and in its history as typed, with its output, as if a person had run it.",
    "stdout and stderr come back as plain text (escape sequences removed; output that clears the screen, like clear, clears the session's screen too).",
    "If the command ends the shell (exit), the reply says the session has ended. stdin is empty unless given. For interactive programs (editors, REPLs, prompts) use submit and wait_for instead;",
    "for a command that may outlast this tool call's time limit (a long build), submit it at the prompt and wait_for command_done, repeatedly.",
  ].join(" "),
  params: v.object({
    session: Session,
    command: v.pipe(v.string(), v.minLength(1), v.description("Shell text, may span lines, e.g. 'make test 2>&1 | tail -20'.")),
    timeout_ms: v.optional(
      v.pipe(
        v.number(),
        v.integer(),
        v.minValue(0),
        v.maxValue(3_600_000),
        v.description("Interrupt it (Ctrl+C) after this long; default 120000; 0: no limit."),
      ),
      120_000,
    ),
    stdin: v.optional(v.pipe(v.string(), v.description("Fed to the command's standard input."))),
  }),
  async run(p, ctx) {
    ctx.typedInto.add(p.session);
    const r = await ctx.call("exec.run", { session: p.session, command: p.command, timeout_ms: p.timeout_ms, stdin: p.stdin });
    const output = asText(r.output);
    const stderr = asText(r.stderr);
    // A command that ended the shell (exit, exec of something that finished) ended the session with it.
    const info = await ctx.call("session.info", { session: p.session });
    const ended = info.state !== "running";
    const status = r.timed_out
      ? `timed out after ${p.timeout_ms} ms (interrupted)`
      : r.exit_code === null
        ? "did not finish"
        : `exit code ${r.exit_code}`;
    const parts = [`${status} (${r.duration_ms} ms)`];
    if (ended)
      parts.push(
        `the shell exited, so session ${info.name} has ended (${info.state}${info.exit_code !== null ? `, exit code ${info.exit_code}` : ""}); start_session to start another`,
      );
    parts.push(output ? `stdout:\n${clip(output)}` : "stdout: (empty)");
    if (stderr) parts.push(`stderr:\n${clip(stderr)}`);
    if (r.truncated) parts.push("(output was cut at 4 MiB)");
    return text(parts.join("\n"), {
      exit_code: r.exit_code,
      timed_out: r.timed_out,
      duration_ms: r.duration_ms,
      stdout: clip(output),
      stderr: clip(stderr),
      session_ended: ended,
    });
  },
});
