import { DebugSchema } from "../../protocol/schemas.ts";
import { sessionCommand } from "../command.ts";

export default sessionCommand({
  name: "session.debug",
  params: DebugSchema,
  target: {},
  exec: async (p, _ctx, s) => {
    // termios first: reading c_cc waits for stty, and the log must be taken (and cleared) in one
    // step after that, so nothing logged in between is cleared unseen.
    const termios = await s.termios();
    const { unhandled, dropped } = s.stream.tap.unhandled(p.clear);
    return { unhandled, dropped, termios, modes: s.stream.modes, marks: [...s.stream.tap.marks] };
  },
});
