import { closeSync } from "node:fs";
import { CreateSchema } from "../../protocol/schemas.ts";
import { command } from "../command.ts";
import { infoOf } from "../session-info.ts";
import { attachTee, openTee } from "../../session/tee.ts";

export default command({
  name: "session.create",
  params: CreateSchema,
  exec: async (p, { daemon }) => {
    // log_path opens before the program starts (a bad path fails the call) and is attached before
    // any output can arrive: the first bytes come in on a later turn of the event loop.
    const teeFd = p.log_path !== undefined ? openTee(p.log_path, p.log_append) : null;
    let s: Awaited<ReturnType<typeof daemon.store.create>>;
    try {
      s = await daemon.store.create(p);
    } catch (err) {
      if (teeFd !== null) closeSync(teeFd);
      throw err;
    }
    const stopTee = teeFd !== null ? attachTee(s, teeFd) : () => {};
    if (p.socket !== undefined) {
      try {
        await daemon.openSessionSocket(s.id, p.socket, { dialect: p.socket_dialect, cleanup: p.socket_cleanup });
        s.socket = p.socket;
      } catch (err) {
        stopTee();
        daemon.store.remove(s);
        throw err;
      }
    }
    return infoOf(s);
  },
});
