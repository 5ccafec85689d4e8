import { ExecRunSchema } from "../../protocol/schemas.ts";
import { command } from "../command.ts";

export default command({
  name: "exec.run",
  params: ExecRunSchema,
  // A client that goes away does not stop the command: it runs to its end (or timeout), so
  // nothing it was doing is cut off half way; exec.cancel stops it.
  exec: async (p, { daemon, conn }) => {
    const s = daemon.store.get(p.session);
    // In the live shell the command is typed at its prompt; a fresh one never touches the terminal.
    if (!p.fresh) s.hold.check(conn.subscription(s), "a command in its shell (exec.run; fresh: true still runs)");
    const result = await s.exec.run(p);
    daemon.counters.commandsRun++;
    return result;
  },
});
