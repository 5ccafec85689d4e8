// Where the installed npm package keeps this machine's termd binary: in the platform package
// (@termd/linux-x64 …) that npm picked from termd's optionalDependencies by os, cpu and libc.
// The launcher (bin/termd.js) and termd/testing both ask here. Runs under Node and Bun.
import { accessSync, constants, existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { hostTargetName, packageName, TARGETS } from "./targets.ts";
import { VERSION } from "../protocol/version.ts";

/** The binary's path, or why there is none, worded for the person who ran termd. */
export type Located = { path: string } | { problem: string };

export function locateBinary(from: string = import.meta.url): Located {
  const host = hostTargetName();
  const target = TARGETS.find((t) => t.name === host);
  if (!target) {
    return {
      problem:
        `termd: there is no termd build for this platform (${host}); termd is built for ${TARGETS.map((t) => t.name).join(", ")}.\n` +
        "Build it from source on this machine (README, Install: from source), or run it in a Linux container.",
    };
  }
  const pkg = packageName(target);
  let dir: string;
  try {
    dir = dirname(createRequire(from).resolve(`${pkg}/package.json`));
  } catch {
    return {
      problem:
        `termd: the package ${pkg}, which holds termd's binary for this platform (${host}), is not installed.\n` +
        "npm installs it with termd unless optional dependencies were left out (--omit=optional, --no-optional) or the lock file was made on another platform.\n" +
        `Install it: npm install ${pkg}@${VERSION} (or reinstall termd with optional dependencies).`,
    };
  }
  const path = join(dir, "bin", "termd");
  if (!existsSync(path)) return { problem: `termd: ${path} is missing from ${pkg}; reinstall it: npm install ${pkg}@${VERSION}` };
  try {
    accessSync(path, constants.X_OK);
  } catch {
    return { problem: `termd: ${path} is not executable (unpacked without its file modes?); run chmod +x ${path}, or reinstall ${pkg}` };
  }
  return { path };
}
