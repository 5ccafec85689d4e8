import { resolve } from "node:path";
import { processes } from "../../platform/index.ts";
import { NoParamsSchema } from "../../protocol/schemas.ts";
import { BUILD } from "../../protocol/version.ts";
import { command } from "../command.ts";

export default command({
  name: "system.stats",
  params: NoParamsSchema,
  exec: (_p, { daemon }) => {
    const sessions = daemon.store.list();
    return {
      ...BUILD,
      // Absolute, so a client elsewhere (termd daemon restart) finds the same folder.
      state_dir: resolve(daemon.options.stateDir),
      flags: daemon.options.flags ?? [],
      sessions: sessions.length,
      running: sessions.filter((s) => s.running).length,
      uptime_s: daemon.uptimeS(),
      memory_rss_bytes: process.memoryUsage.rss(),
      bytes_in: daemon.counters.bytesIn,
      requests: daemon.counters.requests,
      connections: daemon.counters.connections,
      commands_run: daemon.counters.commandsRun,
      screen_workers: daemon.screens.size,
      open_fds: processes.openFds(),
      process_table: processes.name,
    };
  },
});
