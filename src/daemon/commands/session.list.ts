import { NoParamsSchema } from "../../protocol/schemas.ts";
import { command } from "../command.ts";

export default command({
  name: "session.list",
  params: NoParamsSchema,
  exec: (_p, { daemon }) => ({ sessions: daemon.store.list().map((s) => s.info()) }),
});
