import { RpcError } from "../../protocol/errors.ts";
import { ScreenSchema } from "../../protocol/schemas.ts";
import { command } from "../command.ts";

export default command({
  name: "session.screen",
  params: ScreenSchema,
  exec: (p, { daemon }) => {
    const s = daemon.store.get(p.session);
    if (p.since_seq === undefined) return s.snapshot(p.format, p.scrollback ?? 0);
    if (p.format !== "text" || p.scrollback) throw new RpcError("INVALID_PARAMS", "since_seq gives text rows of the screen only: leave out format and scrollback");
    return s.changesSince(p.since_seq);
  },
});
