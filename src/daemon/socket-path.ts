// Getting the socket path ready to listen on: a private folder (0700, ours), no second daemon on
// a live socket, a stale socket from a dead daemon replaced, and a lock so two daemons starting
// at the same moment cannot both take the path.
import { accessSync, chmodSync, closeSync, constants, existsSync, lstatSync, mkdirSync, openSync, readFileSync, readlinkSync, unlinkSync, writeSync } from "node:fs";
import { connect } from "node:net";
import { basename, dirname } from "node:path";
import { processes } from "../platform/index.ts";

export class DaemonStartError extends Error {}

/**
 * termd's own folder (one it made, or the default `termd-$UID`) must be a real folder of ours and
 * is kept 0700; a folder the user named is left as it is (the socket itself is 0600), so
 * `--socket ./x.sock` never changes the permissions of the current directory.
 */
export function prepareSocketDir(socketPath: string): void {
  checkSocketPathLength(socketPath, "use a shorter --socket or TERMD_SOCKET");
  const dir = dirname(socketPath);
  if (lstatOrNull(dir)?.isSymbolicLink() && !existsSync(dir)) throw new DaemonStartError(`socket folder ${dir} is a symbolic link to nothing (${readlinkSync(dir)})`);
  const created = mkdirSync(dir, { recursive: true, mode: 0o700 }) !== undefined;
  if (!created && !/^termd-\d+$/.test(basename(dir))) return;
  const st = lstatSync(dir);
  if (st.isSymbolicLink()) throw new DaemonStartError(`socket folder ${dir} is a symbolic link; refusing to use it`);
  const uid = process.getuid?.() ?? 0;
  if (st.uid !== uid) throw new DaemonStartError(`socket folder ${dir} belongs to uid ${st.uid}, not to you (uid ${uid}); refusing to use it`);
  if ((st.mode & 0o077) !== 0) chmodSync(dir, 0o700);
}

const MAX_SOCKET_PATH_BYTES = 107;

/** sun_path holds 108 bytes with its NUL: a longer path would be cut short, or refused, by bind. */
export function checkSocketPathLength(socketPath: string, advice: string): void {
  const bytes = Buffer.byteLength(socketPath);
  if (bytes > MAX_SOCKET_PATH_BYTES) {
    throw new DaemonStartError(`socket path ${socketPath.slice(0, 200)} is ${bytes} bytes long; a Unix socket path holds at most ${MAX_SOCKET_PATH_BYTES} (${advice})`);
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
    const sock = connect(path);
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

/** Alive and not a zombie: a killed daemon may linger unreaped where nothing reaps orphans. */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
  return processes.isZombie(pid) !== true;
}

/** Takes `${socket}.lock` (O_EXCL, holding our pid); returns its release. A dead holder's lock is taken over. */
export function takeLock(lockPath: string, inUse: (holder: number) => string): () => void {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(lockPath, "wx", 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => {
        try {
          if (readFileSync(lockPath, "utf8") === String(process.pid)) unlinkSync(lockPath);
        } catch {}
      };
    } catch (err) {
      // Not an ENOENT the CLI would word as "no daemon answers": the daemon could not make its lock.
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw new DaemonStartError(`cannot create the lock ${lockPath}: ${(err as Error).message}`);
      const holder = Number(readFileSync(lockPath, "utf8").trim());
      if (holder > 0 && holder !== process.pid && pidAlive(holder)) {
        throw new DaemonStartError(inUse(holder));
      }
      try {
        unlinkSync(lockPath);
      } catch {}
    }
  }
  throw new DaemonStartError(`could not take the lock ${lockPath}`);
}

/** Refuses a live socket; removes a stale one. */
export async function clearStaleSocket(socketPath: string): Promise<void> {
  if (!existsSync(socketPath)) return;
  // Only ever remove a socket: a mistyped path must not delete someone's file.
  if (!lstatSync(socketPath).isSocket()) throw new DaemonStartError(`${socketPath} exists and is not a socket; refusing to replace it`);
  if (await socketAnswers(socketPath)) {
    throw new DaemonStartError(`a termd daemon already answers on ${socketPath}; stop it first (termd daemon stop)`);
  }
  unlinkSync(socketPath);
}
