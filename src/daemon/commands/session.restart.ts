import { RestartSchema } from "../../protocol/schemas.ts";
import { sessionCommand } from "../command.ts";
import { infoOf } from "../session-info.ts";

export default sessionCommand({
  name: "session.restart",
  params: RestartSchema,
  target: {},
  exec: async (p, { daemon }, s) => {
    await daemon.store.restart(s, p.grace_ms ?? daemon.options.stopGraceMs);
    return infoOf(s);
  },
});
