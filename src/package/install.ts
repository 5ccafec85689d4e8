// The npm package's postinstall (install.js, built for Node ≥ 20), as esbuild's: puts this
// platform's binary where npm linked the `termd` command (bin/termd.js, the launcher), so that
// `termd` runs the binary itself instead of Node first. Node alone takes longer to start than a
// whole termd command (~140 ms against ~40 ms on the machine the figures come from).
// The launcher stays wherever this does not run (`--ignore-scripts`, or a package manager that
// holds a dependency's scripts until they are allowed) or anything goes wrong: it does the same,
// only slower, so no failure here ever fails the install.
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, linkSync, renameSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { locateBinary } from "./binary.ts";
import { VERSION } from "../protocol/version.ts";

/** Why the launcher stays, or null once the binary is in its place (or where it stays by design). */
function optimize(): string | null {
  // Yarn may run one install's scripts again from another platform (in Docker), and Yarn 2+
  // does not keep binaries in place; Windows runs a command by its .exe name.
  if (process.platform === "win32" || /\byarn\//.test(process.env.npm_config_user_agent ?? "")) return null;
  const found = locateBinary();
  if ("problem" in found) return found.problem;
  // The binary must run here (the right CPU and C library) and be this version's.
  const built = JSON.parse(execFileSync(found.path, ["--version", "--json"], { encoding: "utf8", timeout: 30_000 })) as {
    version?: string;
  };
  if (built.version !== VERSION) return `${found.path} is termd ${built.version}, not ${VERSION}`;
  const launcher = fileURLToPath(new URL("./bin/termd.js", import.meta.url));
  const temp = `${launcher}.${process.pid}.tmp`;
  rmSync(temp, { force: true });
  try {
    linkSync(found.path, temp);
  } catch {
    // Another file system (a store that links packages across devices) cannot take a hard link.
    copyFileSync(found.path, temp);
    chmodSync(temp, 0o755);
  }
  // A rename replaces the launcher at once: `termd` is never a half-written file.
  renameSync(temp, launcher);
  return null;
}

let kept: string | null;
try {
  kept = optimize();
} catch (err) {
  kept = (err as Error).message;
}
if (kept) console.error(`termd: the termd command stays the Node launcher: ${kept}`);
