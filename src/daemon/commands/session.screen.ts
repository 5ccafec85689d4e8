import { RpcError } from "../../protocol/errors.ts";
import { ScreenSchema } from "../../protocol/schemas.ts";
import { sessionCommand } from "../command.ts";

export default sessionCommand({
  name: "session.screen",
  params: ScreenSchema,
  target: {},
  exec: (p, _ctx, s) => {
    if (p.since_seq === undefined) return s.stream.snapshot(p.format, p.scrollback ?? 0, { end: p.scrollback_end });
    if (p.format !== "text" || p.scrollback || p.scrollback_end)
      throw new RpcError("INVALID_PARAMS", "since_seq gives text rows of the screen only: leave out format, scrollback and scrollback_end");
    return s.stream.changesSince(p.since_seq);
  },
});
