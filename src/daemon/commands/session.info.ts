import { SessionOnlySchema } from "../../protocol/schemas.ts";
import { sessionCommand } from "../command.ts";
import { infoOf } from "../session-info.ts";

export default sessionCommand({
  name: "session.info",
  params: SessionOnlySchema,
  target: {},
  exec: (_p, _ctx, s) => infoOf(s),
});
