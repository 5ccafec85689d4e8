import { StopSchema } from "../../protocol/schemas.ts";
import { command } from "../command.ts";

export default command({
  name: "session.stop",
  params: StopSchema,
  exec: async (p, { daemon }) => {
    const s = daemon.store.get(p.session);
    await s.stop(p.grace_ms ?? daemon.options.stopGraceMs);
    return s.info();
  },
});
