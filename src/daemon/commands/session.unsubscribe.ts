import { UnsubscribeSchema } from "../../protocol/schemas.ts";
import { sessionCommand } from "../command.ts";
import { expandEvents } from "./session.subscribe.ts";

export default sessionCommand({
  name: "session.unsubscribe",
  params: UnsubscribeSchema,
  target: {},
  exec: (p, { daemon, peer }, s) => {
    const sessions = s ? [s] : daemon.store.list();
    let left: string[] = [];
    for (const s of sessions) left = [...peer.unsubscribe(s, expandEvents(p.events))];
    return { subscribed: left };
  },
});
