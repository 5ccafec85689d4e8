import { SessionOnlySchema } from "../../protocol/schemas.ts";
import { command } from "../command.ts";

export default command({
  name: "session.info",
  params: SessionOnlySchema,
  exec: (p, { daemon }) => daemon.store.get(p.session).info(),
});
