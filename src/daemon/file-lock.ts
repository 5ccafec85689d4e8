// A lock the kernel releases when its holder dies: flock(2) on an open file. A killed daemon's
// lock file then never stops the next start, whatever process now has the pid written in it (a
// reboot, a container or a PID namespace hands low pids out again at once). The pid in the file
// only names the holder in a refusal.
import { dlopen, FFIType } from "bun:ffi";
import { alive } from "../platform/alive.ts";
import { libcCandidates } from "../platform/libc.ts";
import { closeSync, fstatSync, ftruncateSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from "node:fs";

const LOCK_EX = 2;
const LOCK_NB = 4;

type Flock = (fd: number, op: number) => number;

let loaded: Flock | null | undefined;

function loadFlock(): Flock | null {
  if (loaded !== undefined) return loaded;
  loaded = null;
  for (const name of libcCandidates()) {
    try {
      const lib = dlopen(name, { flock: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 } });
      loaded = lib.symbols.flock as Flock;
      break;
    } catch {}
  }
  if (!loaded) console.error("termd: flock(2) could not be loaded from libc; a lock whose holder's pid is alive is trusted instead");
  return loaded;
}

/** Another live process holds the lock; `holder` is the pid it wrote, when it wrote one. */
export class LockHeld extends Error {
  constructor(readonly holder: number | null) {
    super(`held by ${holder ?? "another process"}`);
  }
}

function holderPid(path: string): number | null {
  try {
    const pid = Number(readFileSync(path, "utf8").trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** The holder's pid once it has written it: one that has just taken the lock writes it next. */
function writtenHolder(path: string): number | null {
  for (let i = 0; i < 20; i++) {
    const pid = holderPid(path);
    if (pid !== null) return pid;
    Bun.sleepSync(5);
  }
  return null;
}

/**
 * Takes the lock at `path` (created 0600), or throws LockHeld. Returns its release, which removes
 * the file while still holding it; anyone who locked the old file meanwhile sees that the path
 * no longer names it and tries again, so two holders never coexist.
 */
export function takeFileLock(path: string): FileLock {
  const flock = loadFlock();
  for (let attempt = 0; attempt < 10; attempt++) {
    const fd = openSync(path, "a+", 0o600);
    if (flock) {
      if (flock(fd, LOCK_EX | LOCK_NB) !== 0) {
        closeSync(fd);
        throw new LockHeld(writtenHolder(path));
      }
    } else {
      const holder = holderPid(path);
      if (holder !== null && holder !== process.pid && alive(holder)) {
        closeSync(fd);
        throw new LockHeld(holder);
      }
    }
    let current: number | null = null;
    try {
      current = statSync(path).ino;
    } catch {}
    if (current !== fstatSync(fd).ino) {
      // Its holder released and removed it between our open and our lock.
      closeSync(fd);
      continue;
    }
    ftruncateSync(fd, 0);
    writeSync(fd, String(process.pid), 0);
    return holding(path, fd);
  }
  throw new Error(`could not take the lock ${path}: it kept being replaced`);
}

/** A lock held: calling it releases it; `fd` is the open file the lock is on. */
export type FileLock = (() => void) & { readonly fd: number };

function holding(path: string, fd: number): FileLock {
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    try {
      if (statSync(path).ino === fstatSync(fd).ino) unlinkSync(path);
    } catch {}
    closeSync(fd);
  };
  return Object.assign(release, { fd });
}

/**
 * The lock at `path` this process holds already on `fd`, which crossed an exec open (a daemon that
 * replaced itself in place, handover.ts): the flock belongs to the open file, so it was never let
 * go. Throws if `fd` is not that file.
 */
export function adoptFileLock(path: string, fd: number): FileLock {
  let same = false;
  try {
    same = statSync(path).ino === fstatSync(fd).ino;
  } catch {}
  if (!same) throw new Error(`fd ${fd} is not the lock ${path} the handover record names`);
  return holding(path, fd);
}
