// systemd socket activation (sd_listen_fds(3)): systemd owns the daemon's socket, made from a
// .socket unit's ListenStream=, and starts the daemon on the first connection with the listening
// socket as fd 3, LISTEN_FDS=1 and LISTEN_PID=its pid. The daemon then serves on that fd and
// leaves the file alone: systemd made it, and keeps it (and the connections waiting on it)
// across a restart of the daemon.
import { resolve } from "node:path";
import { processes } from "../platform/index.ts";

const SD_LISTEN_FDS_START = 3;

/**
 * The listening socket systemd passed this process, or null. The variables go from the
 * environment either way (as sd_listen_fds(1) does it), so no session's program inherits them.
 */
export function takeInheritedSocket(env: NodeJS.ProcessEnv = process.env): number | null {
  const pid = Number(env.LISTEN_PID);
  const count = Number(env.LISTEN_FDS);
  delete env.LISTEN_PID;
  delete env.LISTEN_FDS;
  delete env.LISTEN_FDNAMES;
  delete env.LISTEN_PIDFDID;
  if (pid !== process.pid || !Number.isInteger(count) || count < 1) return null;
  if (count > 1) console.error(`termd: systemd passed ${count} sockets; serving on the first (fd ${SD_LISTEN_FDS_START}) only`);
  return SD_LISTEN_FDS_START;
}

/**
 * The inherited fd must be a Unix socket bound to the daemon's own socket path: sessions are told
 * that path (TERMD_SOCKET), the lock beside it is what keeps a second daemon off it, and clients
 * look for it there. (A plain Error: waiting, as for a lock, would not change it.)
 */
export function checkInheritedSocket(fd: number, socketPath: string): void {
  const what = processes.describeFd(fd);
  if (what === null) return; // the platform cannot tell: trust the unit
  if (what.kind !== "unix")
    throw new Error(
      `fd ${fd} (systemd's LISTEN_FDS) is ${what.what}, not a Unix socket; the .socket unit needs ListenStream=${socketPath}`,
    );
  if (what.path === null || resolve(what.path) !== resolve(socketPath)) {
    throw new Error(
      `systemd's socket (fd ${fd}) is bound to ${what.path ?? "no path"}, but this daemon's socket is ${socketPath}: make them one (termd daemon --socket PATH, or ListenStream=${socketPath})`,
    );
  }
}
