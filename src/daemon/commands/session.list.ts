import { NoParamsSchema } from "../../protocol/schemas.ts";
import { command } from "../command.ts";
import { infoOf } from "../session-info.ts";

export default command({
  name: "session.list",
  params: NoParamsSchema,
  exec: (_p, { daemon }) => ({ sessions: daemon.store.list().map(infoOf) }),
});
