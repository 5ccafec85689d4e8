import { SubscribeSchema, EVENT_TYPES, type EventType } from "../../protocol/schemas.ts";
import { RpcError } from "../../protocol/errors.ts";
import { sessionCommand } from "../command.ts";
import { checkSubscriptions } from "../connection-limits.ts";

export function expandEvents(events: readonly string[]): EventType[] {
  return events.includes("*") ? EVENT_TYPES.filter((e) => e !== "*") : (events as EventType[]);
}

export default sessionCommand({
  name: "session.subscribe",
  params: SubscribeSchema,
  // Refused before anything changes: a second take-over leaves this connection as it was.
  target: (p) => (p.take_over ? { write: "a second take-over" } : {}),
  exec: (p, ctx, s) => {
    const { daemon, peer } = ctx;
    const sessions = s ? [s] : daemon.store.list();
    const events = expandEvents(p.events);
    if (p.take_over !== undefined && p.session === undefined)
      throw new RpcError("INVALID_PARAMS", "take_over needs a session: one connection takes over one session");
    if (p.take_over && p.read_only)
      throw new RpcError("INVALID_PARAMS", "take_over and read_only together: a connection takes a session over to type into it");
    // All or nothing: a subscribe to every session is refused whole rather than cut short.
    checkSubscriptions(ctx, sessions.filter((s) => !peer.subscription(s)).length);
    let from: number | undefined;
    for (const s of sessions) {
      // replay: true → everything the ring still holds; a number → from that byte offset.
      const replayFrom =
        p.replay === true ? s.stream.output.start : typeof p.replay === "number" ? Math.min(p.replay, s.stream.output.end) : null;
      from = peer.subscribe(s, events, replayFrom, {
        size: p.size,
        readOnly: p.read_only,
        stripQueries: p.strip_queries,
        takeOver: p.take_over,
        holder: p.holder,
      }).from;
    }
    return { subscribed: events, ...(p.session !== undefined && from !== undefined ? { from } : {}) };
  },
});
