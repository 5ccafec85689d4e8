import * as v from "valibot";
import { tool, text } from "../tool.ts";
import { Session } from "./params.ts";

export default tool({
  name: "stop_session",
  title: "Stop a session",
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  description:
    "Stops the session's program and everything it started (hangup and SIGTERM, then SIGKILL after the grace). With remove, the session is also forgotten and its name freed; otherwise its last screen stays readable.",
  params: v.object({
    session: Session,
    remove: v.optional(v.pipe(v.boolean(), v.description("Also forget the session and free its name."))),
    grace_ms: v.optional(
      v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(60_000), v.description("Time before SIGKILL (default 5000).")),
    ),
  }),
  async run(p, ctx) {
    const info = await ctx.call("session.info", { session: p.session });
    const after = info.state === "running" ? await ctx.call("session.stop", { session: info.id, grace_ms: p.grace_ms }) : info;
    if (p.remove) await ctx.call("session.remove", { session: info.id });
    ctx.lastRead.delete(p.session);
    const how = after.signal ? `${after.state} (${after.signal})` : `${after.state} (exit code ${after.exit_code})`;
    return text(
      `session ${info.name} ${info.state === "running" ? "stopped" : "had already ended"}: ${how}${p.remove ? "; removed" : ""}`,
      { name: info.name, state: after.state, exit_code: after.exit_code },
    );
  },
});
