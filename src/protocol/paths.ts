// Where the daemon listens and keeps its state. Shared by daemon and clients so both always
// agree on the default socket.
// No node:os or node:path here: loading them cost every command-line call more than its own work.

/** base/parts, for absolute folders from the environment. */
const under = (base: string, ...parts: string[]): string => [trimSlashes(base), ...parts].join("/");

/** base.replace(/\/+$/, ""), without compiling a regular expression in every command-line call. */
function trimSlashes(base: string): string {
  let end = base.length;
  while (end > 0 && base[end - 1] === "/") end--;
  return base.slice(0, end);
}

/** os.tmpdir() on POSIX, as Node and Bun word it. */
const tmpdir = (env: NodeJS.ProcessEnv): string => env.TMPDIR || env.TMP || env.TEMP || "/tmp";

/** $HOME, else the user database's (through node:os, loaded only then). */
const homedir = (env: NodeJS.ProcessEnv): string => env.HOME || process.getBuiltinModule("node:os").homedir();

export function defaultSocketPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.TERMD_SOCKET) return env.TERMD_SOCKET;
  // TRL's clients and scripts name their socket so; termd answers TRL on its own socket.
  if (env.TRL_SOCKET_PATH) return env.TRL_SOCKET_PATH;
  const base = env.XDG_RUNTIME_DIR || tmpdir(env);
  const uid = typeof process.getuid === "function" ? process.getuid() : 0;
  return under(base, `termd-${uid}`, "default.sock");
}

export function defaultStateDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.TERMD_STATE_DIR) return env.TERMD_STATE_DIR;
  return under(env.XDG_STATE_HOME || under(homedir(env), ".local", "state"), "termd");
}
