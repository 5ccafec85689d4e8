import { NoParamsSchema } from "../../protocol/schemas.ts";
import { PROTOCOL_VERSION, VERSION } from "../../protocol/version.ts";
import { command } from "../command.ts";

export default command({
  name: "system.ping",
  params: NoParamsSchema,
  exec: (_p, { daemon }) => ({ version: VERSION, protocol: PROTOCOL_VERSION, pid: process.pid, uptime_s: daemon.uptimeS() }),
});
