// The linux-arm64 build runs: under qemu-user, `termd --version` answers, and a daemon of that
// build starts a bash session whose screen is read back. qemu is slow (seconds per start), so
// this is one daemon and a few calls. Skipped, with the reason, when qemu or the arm64 libraries
// are missing or the arm64 runtime cannot be fetched for the build.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { TestDaemon } from "../harness.ts";
import { compileTarget } from "../../scripts/compile.ts";
import { targetNamed } from "../../src/package/targets.ts";
import { qemuArm64 } from "./qemu.ts";

const dir = mkdtempSync(join(tmpdir(), "termd-arm64-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function prepare(): Promise<{ bin: string[] } | { skip: string }> {
  const qemu = qemuArm64();
  if ("missing" in qemu) return { skip: qemu.missing };
  try {
    return { bin: [...qemu.run, await compileTarget(targetNamed("linux-arm64"), dir)] };
  } catch (err) {
    return { skip: (err as Error).message };
  }
}

const ready = await prepare();
if ("skip" in ready) console.warn(`skipping the linux-arm64 test: ${ready.skip}`);

test.skipIf("skip" in ready)(
  "linux-arm64 under qemu: --version, a bash session started, its screen read back",
  async () => {
    const { bin } = ready as { bin: string[] };
    const version = Bun.spawn([...bin, "--version"], { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    const [out, code] = await Promise.all([new Response(version.stdout).text(), version.exited]);
    expect(code).toBe(0);
    expect(out).toMatch(/^termd \d+\.\d+\.\d+ \(commit \S+, linux-arm64, bun /);

    await using d = await TestDaemon.start({ bin });
    // bun:ffi works there too: the daemon's lock is libc's flock.
    expect(d.banner).not.toContain("could not be loaded");
    const c = await d.client();
    // The daemon is the emulated arm64 program, not a host build.
    const { pid, target } = await c.call("system.ping");
    expect(target).toBe("linux-arm64");
    expect(basename(readlinkSync(`/proc/${pid}/exe`))).toMatch(/^qemu-aarch64/);
    const s = await c.call("session.create", { command: ["bash", "--norc", "--noprofile"], env: { PS1: "arm$ " } });
    await c.call("session.input", { session: s.id, text: "echo $((6 * 7))\r" });
    const w = await c.call("session.wait", { session: s.id, regex: "^42$", timeout_ms: 60_000 });
    expect(w.outcome).toBe("matched");
    const screen = await c.call("session.screen", { session: s.id });
    expect(screen.lines.slice(0, 2)).toEqual(["arm$ echo $((6 * 7))", "42"]);
  },
  300_000,
);
