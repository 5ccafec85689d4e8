// npm run release [-- --targets linux-x64,darwin-arm64]: dist/release/termd-VERSION-TARGET.tar.gz
// for every target (src/package/targets.ts), install.sh (the installer, fetched from the same
// folder) and SHA256SUMS over them. Each archive holds one
// folder, termd-VERSION-TARGET/, with the binary, its interminai and cp-console-server links,
// LICENSE, and the licences of the fonts the binary embeds. Archives are written byte for byte
// the same from the same commit (scripts/tar.ts; the files' time is the commit's).
import { copyFileSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { buildCommit, compileTarget, LINKS, ROOT } from "./compile.ts";
import { tarGz, type TarEntry } from "./tar.ts";
import { TARGETS, targetNamed, type Target } from "../src/package/targets.ts";
import { VERSION } from "../src/protocol/version.ts";

const OUT = join(ROOT, "dist", "release");

/** LICENSE and the fonts' licences, as named in the archive. */
export function licenceFiles(): { name: string; path: string }[] {
  const fonts = join(ROOT, "assets", "fonts");
  return [
    { name: "LICENSE", path: join(ROOT, "LICENSE") },
    ...readdirSync(fonts)
      .filter((f) => f.startsWith("LICENSE-"))
      .sort()
      .map((f) => ({ name: `fonts/${f}`, path: join(fonts, f) })),
  ];
}

/** The commit's time (the files' mtime in every archive); 0 outside git. */
function commitTime(): number {
  const p = Bun.spawnSync(["git", "log", "-1", "--format=%ct"], { cwd: ROOT, stdout: "pipe", stderr: "ignore" });
  return p.exitCode === 0 ? Number(p.stdout.toString().trim()) || 0 : 0;
}

export const archiveName = (t: Target) => `termd-${VERSION}-${t.name}.tar.gz`;

/** Writes OUT/termd-VERSION-TARGET.tar.gz around the binary at `bin`; returns its SHA256SUMS line. */
export function writeArchive(t: Target, bin: string, out: string, mtime: number, level: 1 | 9 = 9): string {
  const top = `termd-${VERSION}-${t.name}`;
  const entries: TarEntry[] = [
    { name: top, kind: "dir" },
    { name: `${top}/termd`, kind: "file", data: readFileSync(bin), mode: 0o755 },
    ...LINKS.map((l): TarEntry => ({ name: `${top}/${l}`, kind: "link", target: "termd" })),
    { name: `${top}/fonts`, kind: "dir" },
    ...licenceFiles().map((f): TarEntry => ({ name: `${top}/${f.name}`, kind: "file", data: readFileSync(f.path), mode: 0o644 })),
  ];
  const archive = tarGz(entries, mtime, level);
  writeFileSync(join(out, archiveName(t)), archive);
  return `${new Bun.CryptoHasher("sha256").update(archive).digest("hex")}  ${archiveName(t)}`;
}

/**
 * Completes the release folder `out` around its archives (their SHA256SUMS lines, `sums`): install.sh
 * beside them, so `URL/install.sh` is there to fetch, and SHA256SUMS over all of it, sorted by name.
 */
export function finishRelease(out: string, sums: string[]): void {
  copyFileSync(join(ROOT, "install.sh"), join(out, "install.sh"));
  const installer = `${new Bun.CryptoHasher("sha256").update(readFileSync(join(out, "install.sh"))).digest("hex")}  install.sh`;
  const lines = [...sums, installer].sort((a, b) => a.slice(66).localeCompare(b.slice(66)));
  writeFileSync(join(out, "SHA256SUMS"), lines.join("\n") + "\n");
}

async function release(targets: readonly Target[]): Promise<void> {
  rmSync(OUT, { recursive: true, force: true });
  const work = join(OUT, ".work");
  const commit = buildCommit();
  const mtime = commitTime();
  const sums: string[] = [];
  for (const t of targets) {
    const started = performance.now();
    sums.push(writeArchive(t, await compileTarget(t, join(work, t.name), commit), OUT, mtime));
    console.log(
      `${archiveName(t)}  ${(Bun.file(join(OUT, archiveName(t))).size / 1e6).toFixed(1)} MB  ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
  }
  rmSync(work, { recursive: true, force: true });
  finishRelease(OUT, sums);
  console.log(`dist/release/SHA256SUMS (commit ${commit})`);
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { targets: { type: "string" } } });
  const targets = values.targets ? values.targets.split(",").map(targetNamed) : TARGETS;
  await release(targets);
}
