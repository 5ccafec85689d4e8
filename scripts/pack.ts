// npm run pack [-- --targets linux-x64,… --out DIR]: the npm packages, as esbuild and biome lay
// theirs out, packed by `npm pack` into dist/npm/ (or DIR):
// - termd: bin/termd.js, a Node ≥ 20 launcher that runs the platform package's binary, and
//   install.js, its postinstall, which puts the binary itself in the launcher's place;
//   termd/client and termd/testing (and the development package's other exports) as bundled
//   JavaScript (lib/) with .d.ts types (types/), no runtime dependencies; the platform packages
//   as optionalDependencies;
// - @termd/TARGET for each target: bin/termd, with os, cpu and libc set so npm installs only the
//   one for the machine.
// The repository's own package.json stays the development package; these are generated here.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { parseArgs } from "node:util";
import { buildCommit, compileTarget, ROOT } from "./compile.ts";
import { licenceFiles } from "./release.ts";
import { hostTargetName, packageName, TARGETS, targetNamed, type Target } from "../src/package/targets.ts";
import { VERSION } from "../src/protocol/version.ts";

const dev = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
const common = { version: VERSION, license: dev.license, repository: dev.repository, engines: dev.engines };

async function run(cmd: string[], cwd = ROOT): Promise<string> {
  const p = Bun.spawn(cmd, { cwd, stdout: "pipe", stderr: "pipe" });
  const [code, out, err] = await Promise.all([p.exited, new Response(p.stdout).text(), new Response(p.stderr).text()]);
  if (code !== 0) throw new Error(`${cmd.join(" ")} failed (exit ${code}):\n${out}${err}`);
  return out;
}

function writeJson(path: string, value: unknown): void {
  writeFileSync(path, JSON.stringify(value, null, 2) + "\n");
}

function copyLicences(dir: string): void {
  for (const f of licenceFiles()) {
    mkdirSync(join(dir, f.name, ".."), { recursive: true });
    copyFileSync(f.path, join(dir, f.name));
  }
}

/** `npm pack` of DIR into OUT; returns the tarball's path. */
async function npmPack(dir: string, out: string): Promise<string> {
  const made = JSON.parse(await run(["npm", "pack", "--json", "--pack-destination", out], dir)) as { filename: string }[];
  return join(out, made[0]!.filename);
}

/** The binary for `target`: dist/termd when `npm run build` made it from this commit, else a fresh compile. */
async function binaryFor(target: Target, work: string, commit: string): Promise<string> {
  const built = join(ROOT, "dist", "termd");
  if (target.name === hostTargetName() && existsSync(built)) {
    const p = Bun.spawnSync([built, "--version", "--json"], { stdout: "pipe", stderr: "ignore" });
    if (p.success) {
      const b = JSON.parse(p.stdout.toString());
      if (b.commit === commit && b.target === target.name) return built;
    }
  }
  return compileTarget(target, join(work, "compiled", target.name), commit);
}

async function platformPackage(target: Target, work: string, out: string, commit: string): Promise<string> {
  const dir = join(work, target.name);
  mkdirSync(join(dir, "bin"), { recursive: true });
  copyFileSync(await binaryFor(target, work, commit), join(dir, "bin", "termd"));
  copyLicences(dir);
  writeFileSync(
    join(dir, "README.md"),
    `# ${packageName(target)}\n\nThe termd binary for ${target.name}. Install \`termd\`, which picks this package for this platform.\n`,
  );
  writeJson(join(dir, "package.json"), {
    name: packageName(target),
    description: `The termd binary for ${target.name}`,
    ...common,
    os: [target.os],
    cpu: [target.cpu],
    ...(target.libc ? { libc: [target.libc] } : {}),
    preferUnplugged: true,
  });
  return npmPack(dir, out);
}

/** The termd package's two Node scripts in DIR: the launcher (bin/termd.js) and its postinstall (install.js). */
async function buildLauncher(dir: string): Promise<void> {
  const forNode = (src: string, out: string, ...flags: string[]) =>
    run([process.execPath, "build", "--target=node", "--format=esm", "--minify", ...flags, src, "--outfile", join(dir, out)]);
  await forNode("src/package/launcher.ts", "bin/termd.js", "--banner=#!/usr/bin/env node");
  await forNode("src/package/install.ts", "install.js");
}

/** The library's entry points: the development package's exports (./client, ./testing, …). */
const entries = Object.entries(dev.exports as Record<string, string>).map(([name, src]) => ({
  name,
  src: src.replace(/^\.\//, ""),
  rel: src.replace(/^\.\/src\//, "").replace(/\.ts$/, ""),
}));

/**
 * The library as the termd package ships it, in DIR/lib: each entry point at lib/PATH.js (termd/testing
 * at lib/testing/index.js), one build of them all, so the code they share (Client, RpcError…) is
 * one module in lib/chunks/ and instanceof holds across them. The test runners' own modules stay
 * imports, resolved from where the library is installed.
 */
export async function buildLibrary(dir: string): Promise<void> {
  await run([
    process.execPath,
    "build",
    "--target=node",
    "--format=esm",
    "--splitting",
    "--chunk-naming=chunks/[name]-[hash].[ext]",
    "--external=bun:test",
    "--external=bun",
    "--external=vitest",
    "--root=src",
    "--outdir",
    join(dir, "lib"),
    ...entries.map((e) => e.src),
  ]);
}

async function mainPackage(work: string, out: string): Promise<string> {
  const dir = join(work, "termd");
  mkdirSync(dir, { recursive: true });
  await buildLauncher(dir);
  await buildLibrary(dir);
  await run([
    join(ROOT, "node_modules", ".bin", "tsc"),
    "--ignoreConfig",
    "--declaration",
    "--emitDeclarationOnly",
    "--outDir",
    join(dir, "types"),
    "--rootDir",
    "src",
    "--target",
    "ESNext",
    "--module",
    "preserve",
    "--moduleResolution",
    "bundler",
    "--types",
    "bun",
    "--strict",
    "--skipLibCheck",
    "--allowImportingTsExtensions",
    "--resolveJsonModule",
    ...entries.map((e) => e.src),
  ]);
  // The sources import "./x.ts"; the published types are .d.ts files, found through "./x.js".
  // The schemas' types are valibot's, whose one self-contained .d.ts ships beside them (MIT), so
  // the package needs no dependency for its types either.
  const types = join(dir, "types");
  copyFileSync(join(ROOT, "node_modules", "valibot", "dist", "index.d.mts"), join(types, "valibot.d.ts"));
  copyFileSync(join(ROOT, "node_modules", "valibot", "LICENSE.md"), join(types, "valibot.LICENSE.md"));
  for (const f of readdirSync(types, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".d.ts") && f !== "valibot.d.ts")) {
    const path = join(types, f);
    const valibot = relative(dirname(path), join(types, "valibot.js"));
    const text = readFileSync(path, "utf8")
      .replace(/((?:from|import)\s*\(?\s*["']\.{1,2}\/[^"']*)\.ts(["'])/g, "$1.js$2")
      .replace(/(from\s*|import\s*\(\s*)["']valibot["']/g, `$1"${valibot.startsWith(".") ? valibot : `./${valibot}`}"`);
    writeFileSync(path, text);
  }
  copyLicences(dir);
  copyFileSync(join(ROOT, "README.md"), join(dir, "README.md"));
  writeJson(join(dir, "package.json"), {
    name: "termd",
    description: dev.description,
    ...common,
    type: "module",
    bin: { termd: "bin/termd.js" },
    scripts: { postinstall: "node install.js" },
    exports: {
      ...Object.fromEntries(entries.map((e) => [e.name, { types: `./types/${e.rel}.d.ts`, default: `./lib/${e.rel}.js` }])),
      "./package.json": "./package.json",
    },
    optionalDependencies: Object.fromEntries(TARGETS.map((t) => [packageName(t), VERSION])),
  });
  return npmPack(dir, out);
}

/** Packs termd and the platform packages of `targets` into `out`; returns the tarballs' paths. */
export async function pack(targets: readonly Target[], out: string): Promise<string[]> {
  const work = join(out, ".work");
  rmSync(work, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const commit = buildCommit();
  const made = [await mainPackage(work, out)];
  for (const t of targets) made.push(await platformPackage(t, work, out, commit));
  rmSync(work, { recursive: true, force: true });
  return made;
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { targets: { type: "string" }, out: { type: "string" } } });
  const out = values.out ?? join(ROOT, "dist", "npm");
  if (!values.out) rmSync(out, { recursive: true, force: true });
  const targets = values.targets ? values.targets.split(",").map(targetNamed) : TARGETS;
  for (const f of await pack(targets, out)) console.log(f);
}
