// The params that make the daemon write a file where the caller says. A remote client (HTTP) holds
// only a token, not a login on the daemon's machine, so there they are refused unless the daemon
// was started with --http-allow-files.
import { RpcError } from "../protocol/errors.ts";

const FILE_PARAMS: Readonly<Record<string, readonly string[]>> = {
  "session.create": ["record", "log_path", "socket"],
};

export function refuseFileParams(method: string, params: unknown): void {
  const names = FILE_PARAMS[method];
  if (!names || typeof params !== "object" || params === null) return;
  const given = names.filter((n) => (params as Record<string, unknown>)[n] !== undefined);
  if (given.length === 0) return;
  throw new RpcError(
    "UNAUTHORIZED",
    `${method}: ${given.join(", ")} would write a file on the daemon's machine, which a remote client may not (start the daemon with --http-allow-files to allow it)`,
    { params: given },
  );
}
