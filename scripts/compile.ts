// One target's executable: `bun build --compile --target=bun-…` with the build's commit and target
// baked in (src/protocol/version.ts), and the interminai and cp-console-server links beside it.
// Used by scripts/build.ts (this machine's target), scripts/release.ts (every target) and tests
// that need another target's binary (e.g. linux-arm64 under qemu).
import { mkdirSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import type { Target } from "../src/package/targets.ts";

export const ROOT = join(import.meta.dir, "..");

/** The worker entry points a compiled binary loads by path; each must be an entry of the build. */
const ENTRIES = [
  "src/cli/main.ts",
  "src/terminal/screen-worker.ts",
  "src/pty/pty-worker.ts",
  "src/render/png-worker.ts",
  "src/daemon/line-parser-worker.ts",
];

/** The names the binary answers to besides termd (src/cli/invoked-as.ts). */
export const LINKS = ["interminai", "cp-console-server"];

/** The commit being built: HEAD, with "+dirty" when tracked files differ from it; "unknown" outside git. */
export function buildCommit(): string {
  const git = (args: string[]) => Bun.spawnSync(["git", ...args], { cwd: ROOT, stdout: "pipe", stderr: "ignore" });
  const head = git(["rev-parse", "HEAD"]);
  if (head.exitCode !== 0) return "unknown";
  const dirty = git(["status", "--porcelain", "--untracked-files=no"]).stdout.toString().trim() !== "";
  return head.stdout.toString().trim() + (dirty ? "+dirty" : "");
}

/** `bun build` flags that bake the build's identity into src/protocol/version.ts's BUILD. */
export const buildDefines = (commit: string, target: string): string[] => [
  "--define",
  `TERMD_BUILD_COMMIT=${JSON.stringify(commit)}`,
  "--define",
  `TERMD_BUILD_TARGET=${JSON.stringify(target)}`,
];

/**
 * How every executable of termd is compiled (the bench's floors too, so that they compare): the
 * `bun build` flags besides the target, the build's identity and the entries.
 */
export const COMPILE_FLAGS = [
  "--compile",
  "--minify",
  // --sourcemap puts the source maps inside the binary: a fault's stack names src/ files and
  // lines, never minified code. The copies it also writes beside the binary are to be removed.
  "--sourcemap",
  // Bytecode and split chunks: a client command runs only its own chunks' precompiled code, not
  // the parse of the whole program (the daemon, xterm, MCP, the renderer), which cost it ~40 ms.
  "--bytecode",
  "--format=esm",
  "--splitting",
  // Bun's executables read .env and bunfig.toml from the folder they run in by default: a
  // project's TERMD_URL or TERMD_SOCKET would redirect termd there (and reach the daemon it
  // starts, and every session's environment), and a bunfig.toml termd cannot parse stopped it.
  "--no-compile-autoload-dotenv",
  "--no-compile-autoload-bunfig",
  // The main thread starts with the JIT 10 times as reluctant (src/cli/main.ts says why and
  // when it is set back); worker threads start with the usual policy.
  "--compile-jit-policy=10",
];

/**
 * Compiles `target` into DIR/termd (with its links) and returns the binary's path. The output is
 * the same bytes for the same commit, target and Bun: the file name is the one thing of the build
 * machine's Bun embeds, and it is always `termd` here.
 */
export async function compileTarget(target: Target | undefined, dir: string, commit = buildCommit()): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const out = join(dir, "termd");
  for (const f of ["termd", ...LINKS]) rmSync(join(dir, f), { force: true });
  const cmd = [
    process.execPath,
    "build",
    ...COMPILE_FLAGS,
    // An unsupported host (freebsd…) still gets a binary for itself, named by its platform.
    ...(target ? [`--target=${target.bun}`] : []),
    ...buildDefines(commit, target?.name ?? `${process.platform}-${process.arch}`),
    ...ENTRIES,
    "--outfile",
    out,
  ];
  const p = Bun.spawn(cmd, { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  const [code, stdout, stderr] = await Promise.all([p.exited, new Response(p.stdout).text(), new Response(p.stderr).text()]);
  if (code !== 0) throw new Error(`bun build for ${target?.name ?? "this machine"} failed (exit ${code}):\n${stdout}${stderr}`);
  for (const f of readdirSync(dir)) if (f.endsWith(".map")) rmSync(join(dir, f));
  for (const link of LINKS) symlinkSync("termd", join(dir, link));
  return out;
}
