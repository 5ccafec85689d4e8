import { ShutdownSchema } from "../../protocol/schemas.ts";
import { command } from "../command.ts";

export default command({
  name: "system.shutdown",
  params: ShutdownSchema,
  exec: (p, { daemon }) => {
    const stopping = daemon.store.list().filter((s) => s.running).length;
    // Reply first; the daemon stops its sessions and exits once the reply is on its way.
    daemon.timers.nextTurn(() => void daemon.shutdown(p.grace_ms));
    return { stopping };
  },
});
