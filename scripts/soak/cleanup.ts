// What the soak started, undone on exit, on error and on ^C: daemons, stray processes, the temp dir.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { statFields } from "./helpers.ts";
import { terminateSync } from "../common/daemon-process.ts";

/** Daemons started and not yet known to have exited. */
export const daemons = new Set<Subprocess>();
/** Every process the orphan sessions started, by pid and start time (a reused pid is never touched). */
export const strays = new Map<number, string>();
let tempDir: string | undefined;

/** A temp folder for the run, removed on exit. */
export function makeTempDir(): string {
  tempDir = mkdtempSync(join(tmpdir(), "termd-soak-"));
  return tempDir;
}

export function cleanUp(): void {
  for (const p of daemons) terminateSync(p);
  daemons.clear();
  for (const [pid, start] of strays) {
    if (statFields(pid)?.[19] !== start) continue;
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  }
  strays.clear();
  if (tempDir) rmSync(tempDir, { recursive: true, force: true, maxRetries: 5 });
  tempDir = undefined;
}

process.on("exit", cleanUp);
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(sig, () => {
    console.error(`\nsoak: ${sig}, cleaning up`);
    cleanUp();
    process.exit(130);
  });
}
