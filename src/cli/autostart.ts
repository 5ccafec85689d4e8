// Starting the daemon on demand: a detached process in its own session (setsid), its stderr in
// the state dir's daemon.log, and a wait until its socket answers. cp-console-server starts its
// own the same way.
import { defaultStateDir } from "../protocol/paths.ts";
import { connect, type Client } from "../client/client.ts";
import { connectWhenUp } from "../client/connect-when-up.ts";
import { EXIT } from "./command.ts";
import { selfCommand } from "../platform/self-command.ts";

const START_TIMEOUT_MS = 10_000;

/** Loaded only to start a daemon: a command whose daemon answers does not pay for them at start-up. */
const loadNode = async () => {
  const [{ spawn }, fs, { join, resolve }] = await Promise.all([import("node:child_process"), import("node:fs"), import("node:path")]);
  return { spawn, fs, join, resolve };
};
type NodeModules = Awaited<ReturnType<typeof loadNode>>;
/** A lost start race whose winner has not answered by then is tried again. */
const RESTART_AFTER_LOST_MS = 1000;

export interface StartOptions {
  /** Default: the user's (TERMD_STATE_DIR, else XDG_STATE_HOME/termd). */
  stateDir?: string;
  /** More `termd daemon` flags. */
  args?: string[];
  /** The daemon's working directory, which sessions created without a cwd inherit (default "/"). */
  cwd?: string;
}

/**
 * Starts a daemon on `socketPath` and connects once it answers: its own, or, when several
 * clients start one at the same moment, whichever won the race.
 */
export async function startDaemon(given: string, opts: StartOptions = {}): Promise<Client> {
  const node = await loadNode();
  // The daemon runs elsewhere (in "/" by default): a relative path would name another file there.
  const socketPath = node.resolve(given);
  const stateDir = node.resolve(opts.stateDir ?? defaultStateDir());
  node.fs.mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const logPath = node.join(stateDir, "daemon.log");
  const deadline = Date.now() + START_TIMEOUT_MS;
  let daemon = spawnDaemon(node, socketPath, stateDir, logPath, opts);
  let lostAt: number | null = null;
  const client = await connectWhenUp(
    () => connect(socketPath),
    deadline,
    async () => {
      // A daemon on another socket holds the state dir: no start here can succeed while it runs,
      // and the daemon's own message says what to do (give this one its own state dir).
      if (daemon.exited === EXIT.STATE_DIR_HELD) throw new Error(startFailure(node, logPath, daemon.logStart));
      if (daemon.exited === EXIT.DAEMON_RUNNING) {
        // Another start won the race for this socket (or a daemon was still on its way out): the
        // winner answers soon. If none does, the holder was leaving, and ours is started again.
        lostAt ??= Date.now();
        if (Date.now() - lostAt > RESTART_AFTER_LOST_MS) {
          daemon = spawnDaemon(node, socketPath, stateDir, logPath, opts);
          lostAt = null;
        }
      } else if (daemon.exited !== null && daemon.exited !== 0) {
        // Ours failed; another's may have come up meanwhile.
        return connect(socketPath).catch(() => {
          throw new Error(
            `the termd daemon exited with code ${daemon.exited} while starting: ${startFailure(node, logPath, daemon.logStart)}`,
          );
        });
      }
      return undefined;
    },
  );
  if (!client) throw new Error(`the termd daemon did not answer on ${socketPath} within ${START_TIMEOUT_MS} ms; see ${logPath}`);
  if (daemon.exited === null && daemon.pid !== undefined) {
    // Several clients started one at once and another's answered: ours, still on its way up
    // (busy machines start 20 slowly), would take the lock once that one stops, and run on for
    // nobody.
    const { pid } = await client.call("system.ping");
    if (pid !== daemon.pid) {
      try {
        process.kill(daemon.pid, "SIGTERM");
      } catch {}
    }
  }
  return client;
}

/** A `termd daemon` process, detached in its own session (setsid), its output appended to the log. */
function spawnDaemon(
  { spawn, fs }: NodeModules,
  socketPath: string,
  stateDir: string,
  logPath: string,
  opts: StartOptions,
): { exited: number | null; logStart: number; pid: number | undefined } {
  const log = fs.openSync(logPath, "a", 0o600);
  const state = { exited: null as number | null, logStart: fs.fstatSync(log).size, pid: undefined as number | undefined };
  const [cmd, ...args] = selfCommand();
  const child = spawn(cmd!, [...args, "daemon", "--state-dir", stateDir, ...(opts.args ?? [])], {
    detached: true,
    stdio: ["ignore", log, log],
    cwd: opts.cwd ?? "/",
    env: { ...process.env, TERMD_SOCKET: socketPath, TERMD_URL: "" },
    // A binary run as `interminai` (a copy's execPath is that name) must start a termd daemon.
    argv0: "termd",
  });
  fs.closeSync(log);
  state.pid = child.pid;
  child.once("exit", (code) => (state.exited = code ?? 1));
  child.unref();
  return state;
}

/** Why the daemon gave up: its last line in daemon.log since `from`, and where the rest is. */
function startFailure({ fs }: NodeModules, logPath: string, from: number): string {
  let said = "";
  try {
    said = fs.readFileSync(logPath).subarray(from).toString("utf8").trim().split("\n").at(-1) ?? "";
  } catch {}
  const why = said.replace(/^termd daemon: /, "");
  return why ? `${why} (more in ${logPath})` : `see ${logPath}`;
}
