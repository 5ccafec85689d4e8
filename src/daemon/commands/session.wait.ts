import { WaitSchema } from "../../protocol/schemas.ts";
import { waitFor } from "../../session/wait.ts";
import { sessionCommand } from "../command.ts";
import { asPendingWait } from "../connection-limits.ts";

export default sessionCommand({
  name: "session.wait",
  params: WaitSchema,
  target: {},
  exec: (p, ctx, s) => asPendingWait(ctx, () => waitFor(s, p, ctx.signal)),
});
