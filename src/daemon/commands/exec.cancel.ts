import { ExecCancelSchema } from "../../protocol/schemas.ts";
import { sessionCommand } from "../command.ts";

export default sessionCommand({
  name: "exec.cancel",
  params: ExecCancelSchema,
  target: {},
  exec: (p, _ctx, s) => s.exec.cancel(p.signal),
});
