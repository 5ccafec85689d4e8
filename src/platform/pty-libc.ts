// The few libc calls a PTY termd owns needs that node:fs has no binding for (ioctl, tcgetattr,
// tcsetattr, poll, pipe2), and read(2) without an exception per EAGAIN, through bun:ffi. Linux only: the request numbers and the struct layouts
// below are Linux's (the same on x86-64 and arm64, glibc and musl). Elsewhere, or where no libc
// loads, `ptyLibc()` is null and sessions run on Bun's own Terminal (pty/pty.ts).
import { dlopen, FFIType, ptr, read } from "bun:ffi";
import { libcCandidates } from "./libc.ts";

const TIOCGPTN = 0x80045430;
const TIOCSPTLCK = 0x40045431;
const TIOCSWINSZ = 0x5414;
/** tcsetattr's "now". */
const TCSANOW = 0;
/** sizeof(struct termios) in glibc and musl: four flag words, c_line, c_cc[32], two speeds. */
const TERMIOS_SIZE = 60;
const CC_OFFSET = 17;
/** How many of c_cc's slots Linux uses (NCCS in the kernel's own struct). */
const LINUX_NCCS = 17;

export const POLLIN = 0x1;
export const POLLOUT = 0x4;
export const POLLERR = 0x8;
export const POLLHUP = 0x10;
export const POLLNVAL = 0x20;
export const EAGAIN = 11;

export interface TermiosWords {
  iflag: number;
  oflag: number;
  cflag: number;
  lflag: number;
  /** c_cc, slot by slot (VINTR first). */
  cc: number[];
}

export interface PtyLibc {
  /** Unlocks a freshly opened /dev/ptmx and returns its slave's path. */
  unlock(master: number): string;
  setSize(fd: number, rows: number, cols: number): void;
  /** On a master, Linux reads and sets the slave's settings (the line discipline's). */
  getTermios(fd: number): TermiosWords | null;
  setTermios(fd: number, words: Omit<TermiosWords, "cc">): boolean;
  /** poll(2) on `fds`, an array of struct pollfd (int fd; short events; short revents). */
  poll(fds: Int32Array, count: number, timeoutMs: number): number;
  /** A non-blocking, close-on-exec pipe: [read end, write end]. */
  pipe(): [number, number];
  /**
   * read(2) into `buf` from `offset`: the bytes read (0 at end of file), or minus the errno. A
   * drained non-blocking PTY answers -EAGAIN on every round of a flood: node:fs would throw an
   * error object for each.
   */
  read(fd: number, buf: Uint8Array, offset: number, length: number): number;
}

let loaded: PtyLibc | null | undefined;

function bind(name: string): PtyLibc {
  const { symbols: c } = dlopen(name, {
    ioctl: { args: [FFIType.i32, FFIType.u64, FFIType.ptr], returns: FFIType.i32 },
    tcgetattr: { args: [FFIType.i32, FFIType.ptr], returns: FFIType.i32 },
    tcsetattr: { args: [FFIType.i32, FFIType.i32, FFIType.ptr], returns: FFIType.i32 },
    poll: { args: [FFIType.ptr, FFIType.u64, FFIType.i32], returns: FFIType.i32 },
    pipe2: { args: [FFIType.ptr, FFIType.i32], returns: FFIType.i32 },
    read: { args: [FFIType.i32, FFIType.ptr, FFIType.u64], returns: FFIType.i64_fast },
    __errno_location: { args: [], returns: FFIType.ptr },
  });
  const int = new Int32Array(2);
  return {
    unlock(master) {
      int[0] = 0;
      if (c.ioctl(master, TIOCSPTLCK, ptr(int)) !== 0) throw new Error("cannot unlock the PTY (TIOCSPTLCK)");
      if (c.ioctl(master, TIOCGPTN, ptr(int)) !== 0) throw new Error("cannot name the PTY (TIOCGPTN)");
      return `/dev/pts/${int[0]}`;
    },
    setSize(fd, rows, cols) {
      c.ioctl(fd, TIOCSWINSZ, ptr(new Uint16Array([rows, cols, 0, 0])));
    },
    getTermios(fd) {
      const t = new Uint8Array(TERMIOS_SIZE);
      if (c.tcgetattr(fd, ptr(t)) !== 0) return null;
      const w = new Uint32Array(t.buffer, 0, 4);
      return { iflag: w[0]!, oflag: w[1]!, cflag: w[2]!, lflag: w[3]!, cc: [...t.subarray(CC_OFFSET, CC_OFFSET + LINUX_NCCS)] };
    },
    setTermios(fd, words) {
      const t = new Uint8Array(TERMIOS_SIZE);
      if (c.tcgetattr(fd, ptr(t)) !== 0) return false;
      new Uint32Array(t.buffer, 0, 4).set([words.iflag, words.oflag, words.cflag, words.lflag]);
      return c.tcsetattr(fd, TCSANOW, ptr(t)) === 0;
    },
    poll(fds, count, timeoutMs) {
      return c.poll(ptr(fds), count, timeoutMs);
    },
    pipe() {
      const O_NONBLOCK = 0x800;
      const O_CLOEXEC = 0x80000;
      if (c.pipe2(ptr(int), O_NONBLOCK | O_CLOEXEC) !== 0) throw new Error("pipe2 failed");
      return [int[0]!, int[1]!];
    },
    read(fd, buf, offset, length) {
      const n = Number(c.read(fd, ptr(buf, offset), length));
      // errno is the calling thread's own: ask for its place each time (pty workers bind their own).
      return n >= 0 ? n : -read.i32(c.__errno_location()!);
    },
  };
}

/** The bindings, or null where termd cannot own its PTYs (not Linux, no libc, no /bin/sh to start programs with). */
export function ptyLibc(): PtyLibc | null {
  if (loaded !== undefined) return loaded;
  loaded = null;
  if (process.platform !== "linux") return loaded;
  for (const name of libcCandidates()) {
    try {
      loaded = bind(name);
      break;
    } catch {}
  }
  return loaded;
}
