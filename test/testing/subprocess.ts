// Runs a test file of termd/testing's in its own test process (`bun test`, vitest or `node
// --test`), in a temp folder (so its test-results/ and __screens__/ land there), for what only
// shows from outside: failure output, artifacts, snapshots written, and what is left running
// after the process ends.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildLibrary } from "../../scripts/pack.ts";
import { vitest4 } from "./locked-install.ts";

const ROOT = join(import.meta.dir, "..", "..");
export const LIBRARY = join(ROOT, "src", "testing", "index.ts");
const BUN = process.execPath;
/** What Node runs: the compiled termd (npm test builds it first), as a published package does. */
const TERMD_BIN = join(ROOT, "dist", "termd");

export interface BunTestRun {
  code: number;
  /** stdout and stderr together, as a person sees them. */
  output: string;
}

export interface RunOptions {
  args?: string[];
  env?: Record<string, string | undefined>;
}

export class TestProject {
  readonly dir = mkdtempSync(join(tmpdir(), "termd-testing-project-"));
  /** The test process's temp dir (its TMPDIR): what a run leaves there, it left behind. */
  readonly tmp = join(this.dir, "tmp");

  constructor() {
    mkdirSync(this.tmp);
  }

  /** What the runs left in their temp dir (a private daemon's folder goes once its guard saw the process end). */
  leftovers(): string[] {
    return readdirSync(this.tmp);
  }

  /** Writes `name` with `source`; `LIBRARY` in it becomes the library's path. */
  write(name: string, source: string): string {
    const path = join(this.dir, name);
    writeFileSync(path, source.replaceAll("LIBRARY", LIBRARY));
    return path;
  }

  bunTest(file: string, opts: RunOptions = {}): Promise<BunTestRun> {
    return this.run([BUN, "test", `./${file}`, "--timeout", "20000", ...(opts.args ?? [])], opts);
  }

  /**
   * `vitest run FILE` under Node, with vitest `major`: 3 is this checkout's devDependency, 4 is
   * installed from test/testing/vitest4's lock (locked-install.ts). The test file imports termd/testing as
   * the published package ships it (`./lib/testing/index.js`, scripts/pack.ts), which finds vitest where
   * a user's project has it: in the project's node_modules, here a link to the one chosen.
   */
  async vitest(file: string, opts: RunOptions & { major?: 3 | 4 } = {}): Promise<BunTestRun> {
    const vitest = opts.major === 4 ? await vitest4() : join(ROOT, "node_modules", "vitest");
    mkdirSync(join(this.dir, "node_modules"));
    symlinkSync(vitest, join(this.dir, "node_modules", "vitest"));
    await buildLibrary(this.dir);
    return this.run(["node", join(vitest, "vitest.mjs"), "run", "--root", ".", `./${file}`, ...(opts.args ?? [])], {
      ...opts,
      // (vitest 4 colours its report even into a pipe.)
      env: { TERMD_BIN, NO_COLOR: "1", ...opts.env },
    });
  }

  /** `node --test FILE`; the file imports termd/testing/node as the published package ships it (`./lib/testing/node.js`). */
  async nodeTest(file: string, opts: RunOptions = {}): Promise<BunTestRun> {
    await buildLibrary(this.dir);
    return this.run(["node", "--test", ...(opts.args ?? []), `./${file}`], { ...opts, env: { TERMD_BIN, ...opts.env } });
  }

  private async run(argv: string[], opts: RunOptions = {}): Promise<BunTestRun> {
    // CI is the child's to be told: it makes missing snapshots fail.
    const env: Record<string, string | undefined> = {
      ...process.env,
      TERMD_SOCKET: undefined,
      TERMD_DEBUG: undefined,
      TERMD_UPDATE_SNAPSHOTS: undefined,
      TERMD_BIN: undefined,
      CI: undefined,
      TMPDIR: this.tmp,
      ...opts.env,
    };
    const p = Bun.spawn(argv, {
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

export { alive } from "../../src/platform/alive.ts";
