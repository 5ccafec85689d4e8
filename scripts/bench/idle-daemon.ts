// The compiled daemon's RSS with no session (issue 23's ≤ 40 MB), part of section 9.
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { childEnv, daemonArgs, terminateSync, untilListening } from "../common/daemon-process.ts";
import { median } from "../common/measure.ts";
import { onCleanup } from "./cleanup.ts";

/** How long after it listens the RSS is read: past the 5 s after which src/cli/main.ts gives the JIT back. */
const SETTLE_MS = 6000;

/**
 * Most of an idle daemon's RSS is the binary's own pages, and which of them a fault maps depends on
 * how the binary is held in the page cache (Linux maps a whole large folio around a fault, and
 * reading the file through gives larger folios than faulting it in): so each run first drops the
 * binary from the page cache, then either reads it through (`cat`, as after an install or a copy)
 * or leaves it for the daemon to fault in.
 */
function dropFromPageCache(bin: string): void {
  Bun.spawnSync(["dd", `if=${bin}`, "iflag=nocache", "count=0"], { stdout: "ignore", stderr: "ignore" });
}

async function once(bin: string, readFirst: boolean): Promise<{ rss: number; anon: number }> {
  dropFromPageCache(bin);
  if (readFirst) Bun.spawnSync(["cat", bin], { stdout: "ignore" });
  const dir = mkdtempSync(join(process.env.TMPDIR ?? "/tmp", "termd-bench-idle-"));
  const proc = Bun.spawn([bin, ...daemonArgs(join(dir, "d.sock"), join(dir, "state"))], {
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
    env: childEnv(),
  });
  const forget = onCleanup(() => terminateSync(proc));
  try {
    await untilListening(proc);
    await Bun.sleep(SETTLE_MS);
    const status = await Bun.file(`/proc/${proc.pid}/status`).text();
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? NaN) * 1024;
    return { rss: kb("VmRSS"), anon: kb("RssAnon") };
  } finally {
    forget();
    terminateSync(proc);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Median RSS (and its anonymous part) of `runs` fresh daemons of `bin`, each 6 s after it listens. */
export async function idleDaemonRss(bin: string, readFirst: boolean, runs = 3): Promise<{ rss: number; anon: number }> {
  const all: { rss: number; anon: number }[] = [];
  for (let i = 0; i < runs; i++) all.push(await once(bin, readFirst));
  return { rss: median(all.map((r) => r.rss)), anon: median(all.map((r) => r.anon)) };
}
