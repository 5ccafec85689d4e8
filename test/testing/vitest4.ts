// vitest's current major for the runner test, beside the checkout's own vitest 3 (the previous
// one): both are what users of termd/testing have. It cannot be a second devDependency (an alias
// of vitest 4 beside vitest 3 fails npm's peer resolution), so it is installed by `npm ci` from
// the lock in test/testing/vitest4/ (the same packages every run) into a folder under the temp
// dir named for that lock, kept for the next run: one install per machine and lock, from the
// registry or npm's cache.
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const PROJECT = join(import.meta.dir, "vitest4");

let installed: Promise<string> | undefined;

/** The vitest 4 package folder (its node_modules/vitest), installed on first use. */
export function vitest4(): Promise<string> {
  return (installed ??= install());
}

async function install(): Promise<string> {
  const lock = readFileSync(join(PROJECT, "package-lock.json"));
  const home = join(tmpdir(), `termd-vitest4-${createHash("sha256").update(lock).digest("hex").slice(0, 16)}`);
  const vitest = join(home, "node_modules", "vitest");
  if (existsSync(join(vitest, "package.json"))) return vitest;
  // Installed aside and renamed into place, so a run beside this one never sees half an install.
  const work = mkdtempSync(join(tmpdir(), "termd-vitest4-install-"));
  try {
    for (const f of ["package.json", "package-lock.json"]) copyFileSync(join(PROJECT, f), join(work, f));
    const p = Bun.spawn(["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--prefer-offline"], {
      cwd: work,
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    if (code !== 0) throw new Error(`npm ci of vitest 4 (test/testing/vitest4) failed with ${code}:\n${out}${err}`);
    try {
      renameSync(work, home);
    } catch {
      // Another run put it there first: its copy is the same packages.
      if (!existsSync(join(vitest, "package.json"))) throw new Error(`could not move vitest 4's install to ${home}`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return vitest;
}
