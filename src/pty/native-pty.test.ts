// The PTY termd owns, without a daemon: a program on it, read by one poll loop in this thread.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { ptyLibc } from "../platform/pty-libc.ts";
import { NativePty } from "./native-pty.ts";
import { MAX_IN_FLIGHT, PtyReactor, SLICE } from "./pty-reactor.ts";

const libc = ptyLibc();
const WRITE_SYSCALL = process.arch === "arm64" ? 64 : 1;

function start(command: string[]) {
  const reactor = new PtyReactor(libc!, libc!.pipe()[0]);
  let bytes = 0;
  let text = "";
  const exited = Promise.withResolvers<number | null>();
  // Output comes on later turns, once `pty` is set.
  const pty: NativePty = new NativePty(
    {
      command,
      cwd: process.cwd(),
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      size: { rows: 24, cols: 80 },
      term: "xterm-256color",
    },
    {
      data: (d, ack) => {
        bytes += d.length;
        if (text.length < 4096) text += Buffer.from(d).toString("latin1");
        if (ack) pty.acknowledged();
      },
      drain: () => {},
      exit: (code) => exited.resolve(code),
    },
    libc!,
    reactor,
  );
  return { pty, exited: exited.promise, bytes: () => bytes, text: () => text };
}

/** The system call a process waits in, by number (/proc/PID/syscall), or null once it is gone. */
function syscallOf(pid: number): number | null {
  try {
    return Number(readFileSync(`/proc/${pid}/syscall`, "utf8").split(" ")[0]);
  } catch {
    return null;
  }
}

async function until(what: string, ok: () => boolean): Promise<void> {
  for (const deadline = performance.now() + 10_000; !ok(); await Bun.sleep(10)) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
  }
}

test.skipIf(!libc)(
  "the program runs as a session leader with the PTY as its controlling terminal, at the size and settings asked for",
  async () => {
    const p = start(["sh", "-c", 'ps -o sid= -o tty= -p $$; stty size; stty -a | grep -o "iutf8"; tty']);
    expect(await p.exited).toBe(0);
    const [sid, tty] = p.text().trim().split(/\s+/);
    expect(Number(sid)).toBe(p.pty.pid);
    expect(tty).toMatch(/^pts\/\d+$/);
    expect(p.text()).toContain("24 80");
    expect(p.text()).toContain("iutf8");
    expect(p.text()).toContain(`/dev/${tty}`);
  },
);

test.skipIf(!libc)("a paused PTY is not read: the program blocks in write(2), and after resume every byte arrives", async () => {
  const total = 4 * 1024 * 1024;
  const p = start(["dd", "if=/dev/zero", "bs=65536", `count=${total / 65536}`, "status=none"]);
  p.pty.pause();
  await until("the program to block in write", () => syscallOf(p.pty.pid) === WRITE_SYSCALL);
  const held = p.bytes();
  expect(held).toBeLessThan(total);
  p.pty.resume();
  expect(await p.exited).toBe(0);
  expect(p.bytes()).toBe(total);
});

test.skipIf(!libc)("a program that ends while its PTY is paused has its last output read and its exit told, with no resume", async () => {
  // Regression: a paused master was left out of the poll, hangup included, so the exit was told
  // DRAIN_MS after the program ended and what it had left in its PTY was dropped with the master.
  const p = start(["sh", "-c", "head -c 3000 /dev/zero | tr '\\0' x; exit 3"]);
  p.pty.pause();
  expect(await p.exited).toBe(3);
  expect(p.bytes()).toBe(3000);
});

test.skipIf(!libc)(
  "output not yet acknowledged is bounded: past it the PTY is not read, and the program blocks until the daemon takes it",
  async () => {
    const total = 4 * 1024 * 1024;
    const reactor = new PtyReactor(libc!, libc!.pipe()[0]);
    let bytes = 0;
    let owed = false;
    const exited = Promise.withResolvers<void>();
    const spec = {
      command: ["dd", "if=/dev/zero", "bs=65536", `count=${total / 65536}`, "status=none"],
      cwd: process.cwd(),
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      size: { rows: 24, cols: 80 },
      term: "xterm-256color",
    };
    const pty = new NativePty(
      spec,
      { data: (d, ack) => ((bytes += d.length), (owed ||= ack === true)), drain: () => {}, exit: () => exited.resolve() },
      libc!,
      reactor,
    );
    await until("an acknowledgement to be asked for", () => owed);
    await until("the program to block in write", () => syscallOf(pty.pid) === WRITE_SYSCALL);
    expect(bytes).toBeGreaterThanOrEqual(MAX_IN_FLIGHT);
    expect(bytes).toBeLessThan(MAX_IN_FLIGHT + SLICE);
    // Each acknowledgement lets the next window through, until all of it came.
    while (bytes < total) {
      owed = false;
      pty.acknowledged();
      await until("the next window", () => owed || bytes === total);
    }
    await exited.promise;
    expect(bytes).toBe(total);
  },
);

test.skipIf(!libc)("a command that is not there is refused with the reason, before anything starts", () => {
  expect(() => start(["no-such-program-here"])).toThrow('Executable not found in $PATH: "no-such-program-here"');
});
