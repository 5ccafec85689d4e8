import { UnsubscribeSchema } from "../../protocol/schemas.ts";
import { command } from "../command.ts";
import { expandEvents } from "./session.subscribe.ts";

export default command({
  name: "session.unsubscribe",
  params: UnsubscribeSchema,
  exec: (p, { daemon, conn }) => {
    const sessions = p.session !== undefined ? [daemon.store.get(p.session)] : daemon.store.list();
    let left: string[] = [];
    for (const s of sessions) left = [...conn.unsubscribe(s, expandEvents(p.events))];
    return { subscribed: left };
  },
});
