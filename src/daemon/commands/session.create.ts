import { CreateSchema } from "../../protocol/schemas.ts";
import { command } from "../command.ts";
import { infoOf } from "../session-info.ts";

export default command({
  name: "session.create",
  params: CreateSchema,
  exec: async (p, { daemon }) => {
    // log_path (the store opens it before the program starts) is written by the pty worker that
    // reads the program, from its first byte (pty/tee.ts).
    const s = await daemon.store.create(p);
    if (p.socket !== undefined) {
      try {
        await daemon.openSessionSocket(s.id, p.socket, { dialect: p.socket_dialect, cleanup: p.socket_cleanup });
        s.socket = p.socket;
      } catch (err) {
        daemon.store.remove(s);
        throw err;
      }
    }
    return infoOf(s);
  },
});
