import { SubscribeSchema, EVENT_TYPES, type EventType } from "../../protocol/schemas.ts";
import { command } from "../command.ts";

export function expandEvents(events: readonly string[]): EventType[] {
  return events.includes("*") ? EVENT_TYPES.filter((e) => e !== "*") : (events as EventType[]);
}

export default command({
  name: "session.subscribe",
  params: SubscribeSchema,
  exec: (p, { daemon, conn }) => {
    const sessions = p.session !== undefined ? [daemon.store.get(p.session)] : daemon.store.list();
    const events = expandEvents(p.events);
    let from: number | undefined;
    for (const s of sessions) {
      // replay: true → everything the ring still holds; a number → from that byte offset.
      const replayFrom = p.replay === true ? s.output.start : typeof p.replay === "number" ? Math.min(p.replay, s.output.end) : null;
      from = conn.subscribe(s, events, replayFrom, { size: p.size, readOnly: p.read_only, stripQueries: p.strip_queries }).from;
    }
    return { subscribed: events, ...(p.session !== undefined && from !== undefined ? { from } : {}) };
  },
});
