// One place for the numbers a client and a daemon compare. Bump PROTOCOL_VERSION when a method's
// params or result change in a way an older client would misread.
// The version alone: the bundler then leaves the rest of package.json out of every process.
import { version } from "../../package.json" with { type: "json" };
import type { BuildInfo } from "./schemas.ts";

export type { BuildInfo };

export const VERSION: string = version;
export const PROTOCOL_VERSION = 1;

// Set by `bun build --define` (scripts/compile.ts); absent when run from source.
declare const TERMD_BUILD_COMMIT: string | undefined;
declare const TERMD_BUILD_TARGET: string | undefined;

export const BUILD: BuildInfo = {
  version: VERSION,
  commit: typeof TERMD_BUILD_COMMIT === "string" ? TERMD_BUILD_COMMIT : "dev",
  target: typeof TERMD_BUILD_TARGET === "string" ? TERMD_BUILD_TARGET : "source",
  // process.versions rather than Bun: protocol/ compiles without Bun's types (its tsconfig.json).
  bun: process.versions.bun ?? null,
};

/** `termd 0.1.0 (commit 0123456789ab, linux-x64, bun 1.4.5)` */
export function describeBuild(b: BuildInfo): string {
  const commit = startsWithFullHash(b.commit) ? b.commit.slice(0, 12) + b.commit.slice(40) : b.commit;
  const runtime = b.bun ? `bun ${b.bun}` : b === BUILD ? `node ${process.versions.node}` : undefined;
  // No filter and no regular expression: --version would be their only use, and a process's first
  // of each costs it 0.3-0.5 ms (an array builtin is parsed from source, a pattern compiled).
  return `termd ${b.version} (commit ${commit}${b.target ? `, ${b.target}` : ""}${runtime ? `, ${runtime}` : ""})`;
}

/** /^[0-9a-f]{40}/: a full git commit hash, maybe followed by "+dirty". */
function startsWithFullHash(commit: string): boolean {
  if (commit.length < 40) return false;
  for (let i = 0; i < 40; i++) {
    const c = commit.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return false;
  }
  return true;
}

/**
 * Is `theirs` (a daemon's build) the program `mine` is, as far as `mine` can tell? `mine` run from
 * source (commit "dev") is a developer's, who knows what runs: it matches any build of its version.
 * A built `mine` matches only its own commit: a daemon run from a checkout is another program.
 */
export function sameBuild(mine: BuildInfo, theirs: Pick<BuildInfo, "version" | "commit">): boolean {
  return mine.version === theirs.version && (mine.commit === theirs.commit || mine.commit === "dev");
}
