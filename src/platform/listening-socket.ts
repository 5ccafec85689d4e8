// Which of this process's descriptors is the listening Unix socket bound to a path: Bun.listen
// does not say, and a daemon handing itself over (daemon/handover.ts) passes that descriptor to the
// next image. Read from /proc (Linux): /proc/net/unix names each socket's inode, flags and path, and
// /proc/self/fd links each descriptor to its inode.
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/** __SO_ACCEPTCON in /proc/net/unix's Flags: the socket listens. */
const SO_ACCEPTCON = 0x10000;

/** The descriptor of the socket listening on `path`, or null (none, or no /proc). */
export function listeningSocketFd(path: string): number | null {
  const inodes = new Set<string>();
  try {
    // "Num RefCount Protocol Flags Type St Inode Path"
    for (const line of readFileSync("/proc/net/unix", "utf8").split("\n").slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f[7] === path && (Number.parseInt(f[3] ?? "0", 16) & SO_ACCEPTCON) !== 0) inodes.add(f[6]!);
    }
    for (const fd of readdirSync("/proc/self/fd")) {
      let target = "";
      try {
        target = readlinkSync(`/proc/self/fd/${fd}`);
      } catch {} // closed since it was listed (the listing's own descriptor)
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode && inodes.has(inode)) return Number(fd);
    }
  } catch {}
  return null;
}
