import { SessionOnlySchema } from "../../protocol/schemas.ts";
import { sessionCommand } from "../command.ts";

export default sessionCommand({
  name: "session.info",
  params: SessionOnlySchema,
  target: {},
  exec: (_p, _ctx, s) => s.info(),
});
