import { RpcError } from "../../protocol/errors.ts";
import { ResizeSchema } from "../../protocol/schemas.ts";
import { command } from "../command.ts";

export default command({
  name: "session.resize",
  params: ResizeSchema,
  exec: (p, { daemon, conn }) => {
    const s = daemon.store.get(p.session);
    // An ended session's final screen stays as the program left it.
    if (!s.running) throw new RpcError("SESSION_NOT_RUNNING", `session ${s.name} is ${s.state}`);
    const size = { rows: p.rows, cols: p.cols };
    // From an attached terminal this is its window's size: the session follows the smallest.
    const sub = conn.subscription(s);
    if (sub?.attached) sub.setSize(size);
    else s.resize(size);
    return { size: s.size };
  },
});
