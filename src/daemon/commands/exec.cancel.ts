import { ExecCancelSchema } from "../../protocol/schemas.ts";
import { execCancel } from "../../session/exec.ts";
import { command } from "../command.ts";

export default command({
  name: "exec.cancel",
  params: ExecCancelSchema,
  exec: (p, { daemon }) => execCancel(daemon.store.get(p.session), p.signal),
});
