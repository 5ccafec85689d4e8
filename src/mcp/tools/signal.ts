import * as v from "valibot";
import { tool, text } from "../tool.ts";
import { Session } from "./params.ts";

export default tool({
  name: "signal",
  title: "Send a signal",
  annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
  description: [
    "Sends a named signal (INT, TERM, KILL, HUP, QUIT, TSTP, CONT, USR1, WINCH…; SIGINT and 2 work too) to the job in the terminal's foreground",
    "(the command running at a shell's prompt, or the program itself when nothing else runs), or with to: program to the session's program.",
    'For a plain interrupt, press_keys ["Ctrl+C"] does what a person does; this is for a job that ignores it, or another signal.',
  ].join(" "),
  params: v.object({
    session: Session,
    signal: v.pipe(v.string(), v.minLength(1), v.description('The signal, e.g. "INT", "SIGTERM", "KILL" or "9".')),
    to: v.optional(
      v.pipe(
        v.picklist(["foreground", "program"]),
        v.description("foreground (default): the foreground job; program: the session's program (the shell itself, say)."),
      ),
    ),
  }),
  async run(p, ctx) {
    const signal = /^\d+$/.test(p.signal) ? Number(p.signal) : p.signal;
    const r = await ctx.call("session.signal", { session: p.session, signal, target: p.to ?? "foreground" });
    return text(
      `sent ${r.signal_sent} to ${p.to === "program" ? "the program" : "the foreground job"} of ${p.session}; use wait_for (exit, idle_ms) to see what it did`,
      { signal_sent: r.signal_sent },
    );
  },
});
