// `interminai stop`: ends the session (SIGTERM to the program if it still runs) and closes its
// socket; the termd daemon and its other sessions go on.
import { SOCKET, type Subcommand } from "./args.ts";
import { call } from "./request.ts";

export const stop: Subcommand = {
  name: "stop",
  about: "Stop running session",
  opts: [SOCKET],
  async run(a) {
    await call(a.values.get("socket")!, { type: "STOP" }, true);
    return 0;
  },
};
