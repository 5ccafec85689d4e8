import { RpcError } from "../../protocol/errors.ts";
import { ScreensSchema } from "../../protocol/schemas.ts";
import { command } from "../command.ts";

export default command({
  name: "system.screens",
  params: ScreensSchema,
  exec: (p, { daemon }) => {
    const pool = daemon.screens;
    if (p.restart !== undefined && !pool.restart(p.restart)) {
      throw new RpcError("INVALID_PARAMS", `no screen worker ${p.restart}; there are ${pool.size} (0 to ${pool.size - 1})`);
    }
    return { workers: pool.info(), pty_workers: daemon.ptys.screenInfo(), ...(p.restart !== undefined ? { restarted: p.restart } : {}) };
  },
});
