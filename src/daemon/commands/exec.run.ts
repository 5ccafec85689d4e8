import { ExecRunSchema } from "../../protocol/schemas.ts";
import { sessionCommand } from "../command.ts";

export default sessionCommand({
  name: "exec.run",
  params: ExecRunSchema,
  // A client that goes away does not stop the command: it runs to its end (or timeout), so
  // nothing it was doing is cut off half way; exec.cancel stops it.
  // In the live shell the command is typed at its prompt; a fresh one never touches the terminal.
  target: (p) => (p.fresh ? { running: true } : { running: true, write: "a command in its shell (exec.run; fresh: true still runs)" }),
  exec: async (p, { daemon }, s) => {
    const result = await s.exec.run(p);
    daemon.counters.commandsRun++;
    return result;
  },
});
