// Runs a test file of termd/testing's in its own `bun test` process, in a temp folder (so its
// test-results/ and __screens__/ land there), for what only shows from outside: failure output,
// artifacts, snapshots written, and what is left running after the process ends.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const LIBRARY = join(import.meta.dir, "..", "..", "src", "testing", "index.ts");
const BUN = process.execPath;

export interface BunTestRun {
  code: number;
  /** stdout and stderr together, as a person sees them. */
  output: string;
}

export class TestProject {
  readonly dir = mkdtempSync(join(tmpdir(), "termd-testing-project-"));

  /** Writes `name` with `source`; `LIBRARY` in it becomes the library's path. */
  write(name: string, source: string): string {
    const path = join(this.dir, name);
    writeFileSync(path, source.replaceAll("LIBRARY", LIBRARY));
    return path;
  }

  async bunTest(file: string, opts: { args?: string[]; env?: Record<string, string | undefined> } = {}): Promise<BunTestRun> {
    const env: Record<string, string | undefined> = { ...process.env, TERMD_SOCKET: undefined, TERMD_DEBUG: undefined, TERMD_UPDATE_SNAPSHOTS: undefined, ...opts.env };
    const p = Bun.spawn([BUN, "test", `./${file}`, "--timeout", "20000", ...(opts.args ?? [])], {
      cwd: this.dir,
      env: Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined)),
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    return { code, output: out + err };
  }

  [Symbol.dispose](): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Waits for `cond` (checked every 20 ms) up to `ms`; false if it never held. */
export async function eventually(cond: () => boolean | Promise<boolean>, ms = 10_000): Promise<boolean> {
  const deadline = performance.now() + ms;
  for (;;) {
    if (await cond()) return true;
    if (performance.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Whether a process with this pid is still there (a zombie counts as gone). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}
