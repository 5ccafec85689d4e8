import { NoParamsSchema } from "../../protocol/schemas.ts";
import { BUILD, PROTOCOL_VERSION } from "../../protocol/version.ts";
import { command } from "../command.ts";

export default command({
  name: "system.ping",
  params: NoParamsSchema,
  exec: (_p, { daemon }) => ({
    ...BUILD,
    protocol: PROTOCOL_VERSION,
    pid: process.pid,
    uptime_s: daemon.uptimeS(),
    started_at: daemon.startedAtIso,
  }),
});
