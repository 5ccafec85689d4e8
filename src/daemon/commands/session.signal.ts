import { SignalSchema } from "../../protocol/schemas.ts";
import { command } from "../command.ts";

export default command({
  name: "session.signal",
  params: SignalSchema,
  exec: (p, { daemon }) => ({ signal_sent: daemon.store.get(p.session).sendSignal(p.signal, p.target) }),
});
