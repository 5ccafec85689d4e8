import { RpcError } from "../../protocol/errors.ts";
import { HandoverSchema } from "../../protocol/schemas.ts";
import { BUILD } from "../../protocol/version.ts";
import { selfCommand } from "../../platform/self-command.ts";
import { command } from "../command.ts";
import { handOver, planHandover } from "../handover.ts";

export default command({
  name: "system.handover",
  params: HandoverSchema,
  exec: async (p, { daemon, peer }) => {
    // A remote client holds a token, not a login here: it may not name a program to run.
    if (p.command && peer.refusesFileParams)
      throw new RpcError(
        "UNAUTHORIZED",
        "system.handover: a remote client may not name the binary (command); without it the daemon's own build takes over",
      );
    if (daemon.handingOver) throw new RpcError("HANDOVER_REFUSED", "a handover of this daemon is under way already");
    daemon.handingOver = true;
    try {
      const plan = await planHandover(daemon, p.command ?? selfCommand());
      // Reply first; the exec ends every connection, this one too, once the reply is on its way.
      // On the daemon's timers: a daemon closed meanwhile hands nothing over.
      daemon.timers.nextTurn(() => void handOver(daemon, plan).finally(() => (daemon.handingOver = false)));
      return { from: BUILD, to: plan.to, sessions: plan.sessions };
    } catch (err) {
      daemon.handingOver = false;
      throw err;
    }
  },
});
