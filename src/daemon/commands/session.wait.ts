import { WaitSchema } from "../../protocol/schemas.ts";
import { sessionCommand } from "../command.ts";
import { asPendingWait } from "../connection-limits.ts";

export default sessionCommand({
  name: "session.wait",
  params: WaitSchema,
  target: {},
  exec: (p, ctx, s) => asPendingWait(ctx, () => s.waits.wait(p, ctx.signal)),
});
