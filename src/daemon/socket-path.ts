// Getting the socket path ready to listen on: a private folder (0700, ours), no second daemon on
// a live socket, and a stale socket from a dead daemon replaced. (The lock that keeps two daemons
// starting at the same moment apart is file-lock.ts.)
import { accessSync, chmodSync, constants, existsSync, lstatSync, mkdirSync, readlinkSync, unlinkSync } from "node:fs";
import { basename, dirname } from "node:path";

/**
 * Why a daemon could not start; `held`: what another live daemon holds that it needs. Its socket
 * is a start race another client won (the winner answers there soon); its state dir, a daemon on
 * another socket that no waiting makes way for (`termd daemon` exits apart for each, cli/command.ts).
 */
export class DaemonStartError extends Error {
  constructor(
    message: string,
    readonly held: "socket" | "state dir" | null = null,
  ) {
    super(message);
  }

  get busy(): boolean {
    return this.held !== null;
  }
}

/**
 * termd's own folder (one it made, or the default `termd-$UID`) must be a real folder of ours and
 * is kept 0700; a folder the user named is left as it is (the socket itself is 0600), so
 * `--socket ./x.sock` never changes the permissions of the current directory.
 */
export function prepareSocketDir(socketPath: string): void {
  checkSocketPathLength(socketPath, "use a shorter --socket or TERMD_SOCKET");
  const dir = dirname(socketPath);
  if (lstatOrNull(dir)?.isSymbolicLink() && !existsSync(dir))
    throw new DaemonStartError(`socket folder ${dir} is a symbolic link to nothing (${readlinkSync(dir)})`);
  const created = mkdirSync(dir, { recursive: true, mode: 0o700 }) !== undefined;
  if (!created && !isUidFolder(basename(dir))) return;
  const st = lstatSync(dir);
  if (st.isSymbolicLink()) throw new DaemonStartError(`socket folder ${dir} is a symbolic link; refusing to use it`);
  const uid = process.getuid?.() ?? 0;
  if (st.uid !== uid)
    throw new DaemonStartError(`socket folder ${dir} belongs to uid ${st.uid}, not to you (uid ${uid}); refusing to use it`);
  if ((st.mode & 0o077) !== 0) chmodSync(dir, 0o700);
}

/**
 * `termd-` and digits, the default folder's name (`termd-$UID`). A loop, not a regular expression:
 * it would be the first one a daemon compiles, whose code (~0.4 MB) an idle daemon never needs.
 */
function isUidFolder(name: string): boolean {
  if (!name.startsWith("termd-") || name.length === "termd-".length) return false;
  for (let i = "termd-".length; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

const MAX_SOCKET_PATH_BYTES = 107;

/** sun_path holds 108 bytes with its NUL: a longer path would be cut short, or refused, by bind. */
export function checkSocketPathLength(socketPath: string, advice: string): void {
  const bytes = Buffer.byteLength(socketPath);
  if (bytes > MAX_SOCKET_PATH_BYTES) {
    throw new DaemonStartError(
      `socket path ${socketPath.slice(0, 200)} is ${bytes} bytes long; a Unix socket path holds at most ${MAX_SOCKET_PATH_BYTES} (${advice})`,
    );
  }
}

function lstatOrNull(path: string): ReturnType<typeof lstatSync> | null {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

/** The folder must take a new file (the socket); else the daemon cannot listen there. */
export function checkSocketDirWritable(socketPath: string): void {
  const dir = dirname(socketPath);
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
  } catch {
    throw new DaemonStartError(`cannot create the socket in ${dir}: the folder is not writable by this user`);
  }
}

/** Does something accept connections on this socket? */
export function socketAnswers(path: string, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    // node:net is loaded only when a socket file is already there: it is ~5 MB of the daemon's memory.
    const sock = process.getBuiltinModule("node:net").connect(path);
    const done = (ok: boolean) => {
      clearTimeout(timer);
      sock.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    sock.once("connect", () => done(true));
    sock.once("error", () => done(false));
  });
}

/** Refuses a live socket; removes a stale one. */
export async function clearStaleSocket(socketPath: string): Promise<void> {
  // Bun cannot listen through it, and removing it would remove someone's link.
  if (lstatOrNull(socketPath)?.isSymbolicLink() && !existsSync(socketPath)) {
    throw new DaemonStartError(
      `socket path ${socketPath} is a symbolic link to nothing (${readlinkSync(socketPath)}); remove it or name another socket`,
    );
  }
  if (!existsSync(socketPath)) return;
  // Only ever remove a socket: a mistyped path must not delete someone's file.
  if (!lstatSync(socketPath).isSocket()) throw new DaemonStartError(`${socketPath} exists and is not a socket; refusing to replace it`);
  if (await socketAnswers(socketPath)) {
    throw new DaemonStartError(`a termd daemon already answers on ${socketPath}; stop it first (termd daemon stop)`);
  }
  unlinkSync(socketPath);
}
