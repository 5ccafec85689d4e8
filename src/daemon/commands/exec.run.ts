import { ExecRunSchema } from "../../protocol/schemas.ts";
import { command } from "../command.ts";

export default command({
  name: "exec.run",
  params: ExecRunSchema,
  // A client that goes away does not stop the command: it runs to its end (or timeout), so
  // nothing it was doing is cut off half way; exec.cancel stops it.
  exec: async (p, { daemon }) => {
    const result = await daemon.store.get(p.session).exec.run(p);
    daemon.counters.commandsRun++;
    return result;
  },
});
