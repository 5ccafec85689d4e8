import { RestartSchema } from "../../protocol/schemas.ts";
import { command } from "../command.ts";

export default command({
  name: "session.restart",
  params: RestartSchema,
  exec: async (p, { daemon }) => {
    const s = daemon.store.get(p.session);
    await daemon.store.restart(s, p.grace_ms ?? daemon.options.stopGraceMs);
    return s.info();
  },
});
