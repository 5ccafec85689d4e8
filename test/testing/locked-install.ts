// Packages the tests need beside the checkout's own, each at a version a lock file pins: vitest 4
// (test/testing/vitest4/), vitest's current major for the runner tests beside the checkout's
// vitest 3 (an alias of vitest 4 beside vitest 3 fails npm's peer resolution, so it cannot be a
// second devDependency), and TypeScript 5 (test/testing/typescript5/), what most users compile
// with, beside the checkout's TypeScript 7. Each is installed by `npm ci` from its lock (the same
// packages every run) into a folder under the temp dir named for that lock, kept for the next run:
// one install per machine and lock, from the registry or npm's cache.
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const installs = new Map<string, Promise<string>>();

/** The folder of the lock project test/testing/`project`'s package `name` (its node_modules/NAME), installed on first use. */
function locked(project: string, name: string): Promise<string> {
  let p = installs.get(project);
  if (!p) installs.set(project, (p = install(project, name)));
  return p;
}

/** The vitest 4 package folder. */
export const vitest4 = (): Promise<string> => locked("vitest4", "vitest");

/** The TypeScript 5 package folder (its compiler: bin/tsc). */
export const typescript5 = (): Promise<string> => locked("typescript5", "typescript");

async function install(project: string, name: string): Promise<string> {
  const from = join(import.meta.dir, project);
  const lock = readFileSync(join(from, "package-lock.json"));
  const home = join(tmpdir(), `termd-${project}-${createHash("sha256").update(lock).digest("hex").slice(0, 16)}`);
  const pkg = join(home, "node_modules", name);
  if (existsSync(join(pkg, "package.json"))) return pkg;
  // Installed aside and renamed into place, so a run beside this one never sees half an install.
  const work = mkdtempSync(join(tmpdir(), `termd-${project}-install-`));
  try {
    for (const f of ["package.json", "package-lock.json"]) copyFileSync(join(from, f), join(work, f));
    const p = Bun.spawn(["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--prefer-offline"], {
      cwd: work,
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    if (code !== 0) throw new Error(`npm ci of test/testing/${project} failed with ${code}:\n${out}${err}`);
    try {
      renameSync(work, home);
    } catch {
      // Another run put it there first: its copy is the same packages.
      if (!existsSync(join(pkg, "package.json"))) throw new Error(`could not move ${project}'s install to ${home}`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return pkg;
}
