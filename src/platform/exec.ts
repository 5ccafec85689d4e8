// Replacing this process's image in place (execve(2)) and choosing which descriptors survive it
// (fcntl(2)'s FD_CLOEXEC), through bun:ffi: what a daemon handing itself over to another build
// needs (daemon/handover.ts). The pid stays, so the programs it started stay its children; a
// descriptor whose FD_CLOEXEC is cleared stays open in the new image under the same number. Bun
// and libuv open everything close-on-exec, so only what is cleared here crosses. Linux only (the
// constants below are Linux's, the same on x86-64 and arm64, glibc and musl).
import { dlopen, FFIType, ptr, read } from "bun:ffi";
import { libcCandidates } from "./libc.ts";

const F_GETFD = 1;
const F_SETFD = 2;
const FD_CLOEXEC = 1;

export interface ExecLibc {
  /** Clears (`keep`) or sets FD_CLOEXEC on `fd`; throws when `fd` is not open. */
  keepAcrossExec(fd: number, keep: boolean): void;
  /** Whether `fd` is open and survives an exec. */
  keptAcrossExec(fd: number): boolean;
  /**
   * Replaces this process's image with `path` run as `argv` in `env`. Returns only when the exec
   * failed, with the reason; every thread of the process ends when it succeeds.
   */
  execve(path: string, argv: string[], env: Record<string, string>): string;
}

let loaded: ExecLibc | string | undefined;

function cString(s: string): Buffer {
  return Buffer.from(`${s}\0`, "utf8");
}

/** A NULL-terminated array of C strings; the buffers are returned too, to stay alive across the call. */
function cStringArray(items: string[]): { array: BigUint64Array; keep: Buffer[] } {
  const keep = items.map(cString);
  const array = new BigUint64Array(keep.length + 1);
  for (let i = 0; i < keep.length; i++) array[i] = BigInt(ptr(keep[i]!));
  return { array, keep };
}

function bind(name: string): ExecLibc {
  const { symbols: c } = dlopen(name, {
    // fcntl is variadic; its int third argument is passed as any int argument is on these ABIs.
    fcntl: { args: [FFIType.i32, FFIType.i32, FFIType.i32], returns: FFIType.i32 },
    execve: { args: [FFIType.ptr, FFIType.ptr, FFIType.ptr], returns: FFIType.i32 },
    strerror: { args: [FFIType.i32], returns: FFIType.cstring },
    __errno_location: { args: [], returns: FFIType.ptr },
  });
  const errno = () => read.i32(c.__errno_location()!);
  return {
    keepAcrossExec(fd, keep) {
      const flags = c.fcntl(fd, F_GETFD, 0);
      if (flags < 0) throw new Error(`fd ${fd} is not open (${c.strerror(errno())})`);
      const next = keep ? flags & ~FD_CLOEXEC : flags | FD_CLOEXEC;
      if (c.fcntl(fd, F_SETFD, next) < 0) throw new Error(`cannot change fd ${fd}'s FD_CLOEXEC (${c.strerror(errno())})`);
    },
    keptAcrossExec(fd) {
      const flags = c.fcntl(fd, F_GETFD, 0);
      return flags >= 0 && (flags & FD_CLOEXEC) === 0;
    },
    execve(path, argv, env) {
      const file = cString(path);
      const args = cStringArray(argv);
      const vars = cStringArray(Object.entries(env).map(([k, v]) => `${k}=${v}`));
      c.execve(ptr(file), ptr(args.array), ptr(vars.array));
      const why = `${c.strerror(errno())}`;
      // Read after the call: the buffers must live until execve has copied them.
      void [file, args.keep, vars.keep];
      return why;
    },
  };
}

/** The bindings, or why there are none here (not Linux, no libc). */
export function execLibc(): ExecLibc | string {
  if (loaded !== undefined) return loaded;
  if (process.platform !== "linux") return (loaded = "replacing the daemon in place is implemented for Linux only");
  const errors: string[] = [];
  for (const name of libcCandidates()) {
    try {
      return (loaded = bind(name));
    } catch (err) {
      errors.push(`${name}: ${(err as Error).message}`);
    }
  }
  return (loaded = `no libc to call execve from (${errors.join("; ")})`);
}
