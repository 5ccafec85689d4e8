// The screen part of a reply, as small as will do: where the agent already has the screen (it
// read it, or a reply gave it all), only the rows changed since; otherwise `fallback` (the rows
// around a match, the end of the screen), after which the agent still lacks the rest of it, or,
// without one, the whole screen, which the agent then has.
import type { ScreenSnapshot } from "../protocol/schemas.ts";
import { changesText, header, screenText } from "./screen-text.ts";
import type { ToolContext } from "./tool.ts";

export async function screenReply(
  ctx: ToolContext,
  session: string,
  s: ScreenSnapshot,
  fallback?: (s: ScreenSnapshot) => string,
): Promise<string> {
  const since = ctx.lastRead.get(session);
  if (since === undefined) {
    if (fallback) return `${header(session, s)}\n${fallback(s)}`;
    ctx.lastRead.set(session, s.seq);
    return screenText(session, s);
  }
  const now = await ctx.call("session.screen", { session, since_seq: since });
  ctx.lastRead.set(session, now.seq);
  return changesText(session, since, now);
}
