import { StopSchema } from "../../protocol/schemas.ts";
import { sessionCommand } from "../command.ts";
import { infoOf } from "../session-info.ts";

export default sessionCommand({
  name: "session.stop",
  params: StopSchema,
  target: {},
  exec: async (p, { daemon }, s) => {
    await s.stop(p.grace_ms ?? daemon.options.stopGraceMs);
    return infoOf(s);
  },
});
