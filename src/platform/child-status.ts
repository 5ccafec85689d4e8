// How a child ended, read with waitpid(2) through bun:ffi: for the programs a daemon took over
// from the image it replaced (daemon/handover.ts). Bun spawned them, but its wait for each went
// with that image; they are still this process's children (the pid did not change), so waitpid
// reaps them and gives their exit status. Linux and macOS share the status layout read here.
import { dlopen, FFIType, ptr, read } from "bun:ffi";
import { libcCandidates } from "./libc.ts";

const WNOHANG = 1;
const ECHILD = 10;

export type ChildStatus =
  | { state: "running" }
  | { state: "ended"; exitCode: number | null; signal: number | null }
  /** No child of that pid: something else reaped it, and how it ended is unknown. */
  | { state: "gone" };

type Wait = (pid: number) => ChildStatus;

let loaded: Wait | string | undefined;

function bind(name: string): Wait {
  const { symbols: c } = dlopen(name, {
    waitpid: { args: [FFIType.i32, FFIType.ptr, FFIType.i32], returns: FFIType.i32 },
    __errno_location: { args: [], returns: FFIType.ptr },
  });
  const status = new Int32Array(1);
  return (pid) => {
    const r = c.waitpid(pid, ptr(status), WNOHANG);
    if (r === 0) return { state: "running" };
    if (r < 0) return read.i32(c.__errno_location()!) === ECHILD ? { state: "gone" } : { state: "running" };
    const s = status[0]!;
    const sig = s & 0x7f;
    // WIFEXITED: no signal; WIFSIGNALED: a signal that is not the stopped marker (0x7f).
    if (sig === 0) return { state: "ended", exitCode: (s >> 8) & 0xff, signal: null };
    if (sig !== 0x7f) return { state: "ended", exitCode: null, signal: sig };
    return { state: "running" };
  };
}

/**
 * Reaps child `pid` if it has ended, without waiting: its status, "running", or "gone". Each
 * thread binds its own (errno is per thread). Returns why it cannot where libc does not load.
 */
export function childStatus(pid: number): ChildStatus | string {
  if (loaded === undefined) {
    const errors: string[] = [];
    for (const name of libcCandidates()) {
      try {
        loaded = bind(name);
        break;
      } catch (err) {
        errors.push(`${name}: ${(err as Error).message}`);
      }
    }
    loaded ??= `no libc to call waitpid from (${errors.join("; ")})`;
  }
  return typeof loaded === "string" ? loaded : loaded(pid);
}
