// execve in place keeps the pid, the descriptors whose FD_CLOEXEC was cleared and the children:
// a small Bun script, run by the test, execs itself and reports from its second image.
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const SCRIPT = `
import { openSync, readSync, closeSync } from "node:fs";
import { execLibc } from ${JSON.stringify(join(import.meta.dir, "exec.ts"))};
import { childStatus } from ${JSON.stringify(join(import.meta.dir, "child-status.ts"))};
const libc = execLibc();
if (typeof libc === "string") throw new Error(libc);
if (!process.env.SECOND) {
  const kept = openSync(process.argv[2], "r");
  const dropped = openSync(process.argv[2], "r");
  libc.keepAcrossExec(kept, true);
  // A worker thread runs through the exec, as a daemon's pty workers do: started first, as
  // theirs are (one still starting when the exec came crashed Bun now and then: 2 runs of CI).
  const worker = new Worker(URL.createObjectURL(new Blob(["postMessage('up'); setInterval(() => {}, 1000)"])));
  await new Promise((up) => (worker.onmessage = up));
  const child = Bun.spawn(["sh", "-c", "read _; exit 7"], { stdin: "pipe" });
  const env = { ...process.env, SECOND: JSON.stringify({ pid: process.pid, kept, dropped, child: child.pid }) };
  // The pipe to the child's stdin is close-on-exec: the exec closes it, and the child reads the
  // end of its input, then exits 7.
  console.log(libc.execve(process.execPath, [process.execPath, ...process.argv.slice(1)], env));
  process.exit(3);
}
const first = JSON.parse(process.env.SECOND);
const buf = Buffer.alloc(5);
readSync(first.kept, buf, 0, 5, 0);
let dropped = true;
try { readSync(first.dropped, Buffer.alloc(1), 0, 1, 0); dropped = false; } catch {}
let status;
for (;;) {
  status = childStatus(first.child);
  if (status.state !== "running") break;
  Bun.sleepSync(5);
}
console.log(JSON.stringify({ samePid: first.pid === process.pid, keptReads: buf.toString(), keptKeptAgain: libc.keptAcrossExec(first.kept), dropped, status }));
`;

test("a Bun process execs itself: same pid, a descriptor kept open, one closed, and its child reaped with its exit status", () => {
  const dir = mkdtempSync(join(tmpdir(), "termd-exec-"));
  try {
    writeFileSync(join(dir, "data"), "hello");
    writeFileSync(join(dir, "self.ts"), SCRIPT);
    const p = Bun.spawnSync([process.execPath, join(dir, "self.ts"), join(dir, "data")], { stderr: "pipe" });
    expect(p.stderr.toString()).toBe("");
    expect(JSON.parse(p.stdout.toString())).toEqual({
      samePid: true,
      keptReads: "hello",
      // The new Bun marks what it inherits close-on-exec again: a next exec must clear it again.
      keptKeptAgain: false,
      dropped: true,
      status: { state: "ended", exitCode: 7, signal: null },
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
