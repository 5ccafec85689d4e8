import { WaitSchema } from "../../protocol/schemas.ts";
import { waitFor } from "../../session/wait.ts";
import { command } from "../command.ts";
import { asPendingWait } from "../connection-limits.ts";

export default command({
  name: "session.wait",
  params: WaitSchema,
  exec: (p, ctx) => {
    const s = ctx.daemon.store.get(p.session);
    return asPendingWait(ctx, () => waitFor(s, p, ctx.signal));
  },
});
