// One place for the numbers a client and a daemon compare. Bump PROTOCOL_VERSION when a method's
// params or result change in a way an older client would misread.
import pkg from "../../package.json" with { type: "json" };
import type { BuildInfo } from "./schemas.ts";

export type { BuildInfo };

export const VERSION: string = pkg.version;
export const PROTOCOL_VERSION = 1;

// Set by `bun build --define` (scripts/compile.ts); absent when run from source.
declare const TERMD_BUILD_COMMIT: string | undefined;
declare const TERMD_BUILD_TARGET: string | undefined;

export const BUILD: BuildInfo = {
  version: VERSION,
  commit: typeof TERMD_BUILD_COMMIT === "string" ? TERMD_BUILD_COMMIT : "dev",
  target: typeof TERMD_BUILD_TARGET === "string" ? TERMD_BUILD_TARGET : "source",
  bun: typeof Bun === "undefined" ? null : Bun.version,
};

/** `termd 0.1.0 (commit 0123456789ab, linux-x64, bun 1.4.5)` */
export function describeBuild(b: BuildInfo): string {
  const commit = /^[0-9a-f]{40}/.test(b.commit) ? b.commit.slice(0, 12) + b.commit.slice(40) : b.commit;
  const runtime = b.bun ? `bun ${b.bun}` : b === BUILD ? `node ${process.versions.node}` : undefined;
  return `termd ${b.version} (${[`commit ${commit}`, b.target, runtime].filter(Boolean).join(", ")})`;
}

/** Are two builds the same program? A build run from source matches any of its version. */
export function sameBuild(a: BuildInfo, b: Pick<BuildInfo, "version" | "commit">): boolean {
  return a.version === b.version && (a.commit === b.commit || a.commit === "dev" || b.commit === "dev");
}
