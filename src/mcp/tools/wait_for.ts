import * as v from "valibot";
import { ToolError, tool, text, type ToolResult } from "../tool.ts";
import { around, tail } from "../screen-text.ts";
import { screenReply } from "../screen-reply.ts";
import { Session, TimeoutMs } from "./params.ts";
import type { WaitResult } from "../../protocol/schemas.ts";

/** Rows of screen a reply carries before the agent has read the screen: around a match, or its end. */
const CONTEXT_ROWS = 10;

/** The one word an agent branches on. */
type Outcome = "matched" | "gone" | "idle" | "exited" | "command_done" | "timeout" | "changed";

function outcomeOf(r: WaitResult, p: { gone?: string }): Outcome {
  switch (r.outcome) {
    case "matched":
      return r.match ? "matched" : p.gone !== undefined ? "gone" : "matched";
    case "settled":
      return "idle";
    case "exited":
      return "exited";
    case "timeout":
      return "timeout";
    case "command_done":
      return "command_done";
    default:
      return r.outcome === "changed" ? "changed" : "timeout";
  }
}

export default tool({
  name: "wait_for",
  title: "Wait for the screen",
  annotations: { readOnlyHint: true, openWorldHint: false },
  description: [
    "Waits until the first of the given conditions holds, or the timeout: text appears (text), a line matches a regex (RE2 syntax, line by line),",
    "text is gone from the screen (gone: e.g. a spinner or 'esc to interrupt'), the screen stays unchanged for idle_ms,",
    "the program exits (exit), or the command typed at a shell prompt is done (command_done: bash, zsh and fish sessions;",
    "the result then has its exit code and its output). Give at least one.",
    "text and regex count only what appeared after your last input to this session (type_text, submit, press_keys, run_command…),",
    "or after this call if you gave it none: an older row that holds the same text does not answer. With anywhere: true, text already on the screen counts too.",
    "The result starts with one word to branch on: matched, gone, idle, exited, command_done or timeout;",
    "then the rows that changed since you last saw the screen (or, before you first read it, the rows around the match or the end of the screen), so you see why without another read.",
  ].join(" "),
  params: v.object({
    session: Session,
    text: v.optional(v.pipe(v.string(), v.minLength(1), v.description("Text to wait for (a substring of a row)."))),
    regex: v.optional(
      v.pipe(
        v.string(),
        v.minLength(1),
        v.description("RE2 regular expression matched against each row, e.g. '^\\\\$ $' or 'error|failed'."),
      ),
    ),
    anywhere: v.optional(
      v.pipe(
        v.boolean(),
        v.description(
          "text and regex match anywhere on the screen, also what was there before your last input (default false: only what is new).",
        ),
      ),
    ),
    gone: v.optional(v.pipe(v.string(), v.minLength(1), v.description("Wait until this text is no longer on the screen."))),
    idle_ms: v.optional(
      v.pipe(
        v.number(),
        v.integer(),
        v.minValue(1),
        v.maxValue(600_000),
        v.description("Wait until no output and no screen change for this long (e.g. 500)."),
      ),
    ),
    exit: v.optional(v.pipe(v.boolean(), v.description("Wait for the program to exit."))),
    command_done: v.optional(
      v.pipe(
        v.boolean(),
        v.description(
          "In a shell session: wait until the command last submitted at the prompt is done; returns its exit code and output (at once if it already finished).",
        ),
      ),
    ),
    timeout_ms: TimeoutMs("Give up after this long", 10_000),
  }),
  async run(p, ctx): Promise<ToolResult> {
    if ([p.text, p.regex, p.gone, p.idle_ms, p.exit || undefined, p.command_done || undefined].every((x) => x === undefined))
      throw new ToolError("give at least one condition: text, regex, gone, idle_ms, exit or command_done");
    const r = await ctx.call("session.wait", {
      session: p.session,
      text: p.text,
      regex: p.regex,
      fresh: p.anywhere ? undefined : ctx.typedInto.has(p.session) ? "input" : "call",
      gone: p.gone,
      settle_ms: p.idle_ms,
      exit: p.exit || undefined,
      command_done: p.command_done || undefined,
      timeout_ms: p.timeout_ms,
    });
    const outcome = outcomeOf(r, p);
    const s = r.screen;
    const lines: string[] = [outcome];
    const structured: Record<string, unknown> = { outcome, seq: s.seq };
    if (r.command) {
      const c = r.command;
      lines.push(
        `${c.command ?? "the command"} finished with exit code ${c.exit_code ?? "unknown"} after ${c.duration_ms} ms; its output${c.truncated ? " (the last 1 MiB)" : ""}:`,
      );
      lines.push(c.output === "" ? "(none)" : c.output.replace(/\n$/, ""));
      Object.assign(structured, { exit_code: c.exit_code, command: c.command, output: c.output, duration_ms: c.duration_ms });
    } else if (r.match) {
      lines.push(`matched at row ${r.match.row}, col ${r.match.col}: ${JSON.stringify(r.match.text)}`);
      const row = r.match.row;
      lines.push(await screenReply(ctx, p.session, s, (x) => around(x, row, CONTEXT_ROWS)));
      structured.match = r.match;
    } else {
      if (outcome === "exited") {
        const how = r.signal ? `killed by ${r.signal}` : `exit code ${r.exit_code}`;
        lines.push(`the program ended (${how}); its last screen:`);
        structured.exit_code = r.exit_code ?? null;
        if (r.signal) structured.signal = r.signal;
      } else if (outcome === "timeout") {
        const still = p.gone !== undefined ? s.lines.findIndex((l) => l.includes(p.gone!)) : -1;
        lines.push(
          `nothing asked for happened within ${p.timeout_ms} ms${still >= 0 ? `; ${JSON.stringify(p.gone)} is still on row ${still}` : ""}; the screen now:`,
        );
      }
      lines.push(await screenReply(ctx, p.session, s, (x) => tail(x, CONTEXT_ROWS)));
    }
    return text(lines.join("\n"), structured);
  },
});
