// `interminai kill`: a signal to the program itself (name or number; the daemon validates it).
import { SOCKET, type Subcommand } from "./args.ts";
import { call } from "./request.ts";

export const kill: Subcommand = {
  name: "kill",
  about: "Send signal to running process",
  opts: [
    SOCKET,
    {
      long: "signal",
      value: "SIGNAL",
      help: "Signal to send (named like SIGTERM, SIGKILL, SIGINT or numeric like 9, 15, 2) [default: SIGTERM]",
    },
  ],
  async run(a) {
    await call(a.values.get("socket")!, { type: "KILL", signal: a.values.get("signal") ?? "SIGTERM" });
    return 0;
  },
};
