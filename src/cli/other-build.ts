// A CLI of one build talking to a daemon of another (an upgrade installed while the old daemon
// runs) says so, once per process: replies may then differ from what this build documents. It
// offers the way out: a restart hands the sessions over to this build (daemon/handover.ts).
import type { Client } from "../client/client.ts";
import { BUILD, describeBuild, sameBuild, type BuildInfo } from "../protocol/version.ts";

let said = false;

export async function sayIfOtherBuild(client: Client, where: string, err: (s: string) => void): Promise<void> {
  if (said) return;
  let theirs: BuildInfo;
  /** It can hand its sessions over (daemon/handover.ts): it says when it started, as such a daemon does. */
  let handsOver: boolean;
  try {
    const ping = await client.call("system.ping");
    // A daemon from before builds were reported gives its version alone.
    theirs = { version: ping.version, commit: ping.commit ?? "unknown", target: ping.target ?? "unknown", bun: ping.bun ?? null };
    handsOver = ping.started_at !== undefined;
  } catch {
    return; // the command itself will meet and report whatever is wrong
  }
  if (sameBuild(BUILD, theirs)) return;
  said = true;
  const offer = handsOver
    ? "`termd daemon restart` replaces it with this build and keeps your sessions running"
    : "`termd daemon restart --stop-sessions` replaces it with this build (it is too old to hand its sessions over)";
  err(`termd: note: the daemon on ${where} is ${describeBuild(theirs)}; this is ${describeBuild(BUILD)}: ${offer}`);
}
