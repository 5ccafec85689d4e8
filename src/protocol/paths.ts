// Where the daemon listens and keeps its state. Shared by daemon and clients so both always
// agree on the default socket.
import { tmpdir, homedir } from "node:os";
import { join } from "node:path";

export function defaultSocketPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.TERMD_SOCKET) return env.TERMD_SOCKET;
  // TRL's clients and scripts name their socket so; termd answers TRL on its own socket.
  if (env.TRL_SOCKET_PATH) return env.TRL_SOCKET_PATH;
  const base = env.XDG_RUNTIME_DIR || tmpdir();
  const uid = typeof process.getuid === "function" ? process.getuid() : 0;
  return join(base, `termd-${uid}`, "default.sock");
}

export function defaultStateDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.TERMD_STATE_DIR) return env.TERMD_STATE_DIR;
  const base = env.XDG_STATE_HOME || join(homedir(), ".local", "state");
  return join(base, "termd");
}
