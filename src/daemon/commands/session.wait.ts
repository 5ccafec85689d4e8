import { WaitSchema } from "../../protocol/schemas.ts";
import { waitFor } from "../../session/wait.ts";
import { command } from "../command.ts";

export default command({
  name: "session.wait",
  params: WaitSchema,
  exec: (p, { daemon, signal }) => waitFor(daemon.store.get(p.session), p, signal),
});
