// Another target's executable, for the tests that run it (linux-arm64 under qemu). The same entry
// points as scripts/build.ts; scripts/compile.ts replaces this once it is on main.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../harness.ts";

const ENTRIES = ["src/cli/main.ts", "src/terminal/screen-worker.ts", "src/session/pty-worker.ts", "src/render/png-worker.ts"];

/** Compiles for `bunTarget` (e.g. bun-linux-arm64) into DIR/termd; throws with Bun's words when it cannot (offline, say). */
export async function compileFor(bunTarget: string, dir: string): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const out = join(dir, "termd");
  const p = Bun.spawn([process.execPath, "build", "--compile", "--minify", `--target=${bunTarget}`, ...ENTRIES, "--outfile", out], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  const [code, stdout, stderr] = await Promise.all([p.exited, new Response(p.stdout).text(), new Response(p.stderr).text()]);
  if (code !== 0) throw new Error(`bun build --target=${bunTarget} failed (exit ${code}): ${(stdout + stderr).trim().split("\n").slice(-3).join(" ")}`);
  return out;
}
