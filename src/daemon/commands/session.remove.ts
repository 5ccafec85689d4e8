import { RpcError } from "../../protocol/errors.ts";
import { RemoveSchema } from "../../protocol/schemas.ts";
import { command } from "../command.ts";

export default command({
  name: "session.remove",
  params: RemoveSchema,
  exec: async (p, { daemon }) => {
    const s = daemon.store.get(p.session);
    if (s.running) {
      if (!p.force) throw new RpcError("INVALID_PARAMS", `session ${s.name} is still running: stop it first, or pass force`);
      await s.stop(daemon.options.stopGraceMs);
    }
    daemon.store.remove(s);
    return { removed: s.id };
  },
});
