import { SignalSchema } from "../../protocol/schemas.ts";
import { sessionCommand } from "../command.ts";

export default sessionCommand({
  name: "session.signal",
  params: SignalSchema,
  target: { running: true },
  exec: (p, _ctx, s) => ({ signal_sent: s.sendSignal(p.signal, p.target) }),
});
