import { RpcError } from "../../protocol/errors.ts";
import { RemoveSchema } from "../../protocol/schemas.ts";
import { sessionCommand } from "../command.ts";
import { removedError } from "../../session/session-errors.ts";

export default sessionCommand({
  name: "session.remove",
  params: RemoveSchema,
  target: {},
  exec: async (p, { daemon }, s) => {
    if (s.running && !p.force)
      throw new RpcError("INVALID_PARAMS", `session ${s.name} is still running: stop it first, or remove it with force (termd rm --force)`);
    // The socket first: it refuses new clients at once, however long the program takes to stop.
    daemon.closeSessionSocket(s.id);
    if (s.running) await s.stop(daemon.options.stopGraceMs);
    // Two removes of one session: the one that came second finds nothing left to remove.
    if (!daemon.store.remove(s)) throw removedError(s.name);
    if (daemon.options.exitWhenEmpty && daemon.store.list().length === 0) void daemon.shutdown();
    return { removed: s.id };
  },
});
