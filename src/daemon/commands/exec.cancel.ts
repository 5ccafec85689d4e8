import { ExecCancelSchema } from "../../protocol/schemas.ts";
import { command } from "../command.ts";

export default command({
  name: "exec.cancel",
  params: ExecCancelSchema,
  exec: (p, { daemon }) => daemon.store.get(p.session).exec.cancel(p.signal),
});
