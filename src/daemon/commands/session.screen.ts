import { ScreenSchema } from "../../protocol/schemas.ts";
import { command } from "../command.ts";

export default command({
  name: "session.screen",
  params: ScreenSchema,
  exec: (p, { daemon }) => daemon.store.get(p.session).snapshot(p.format, p.scrollback ?? 0),
});
