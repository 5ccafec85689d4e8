// A CLI of one build talking to a daemon of another (an upgrade installed while the old daemon
// runs) says so, once per process: replies may then differ from what this build documents. It
// offers the way out: a restart hands the sessions over to this build (daemon/handover.ts).
import type { Client } from "../client/client.ts";
import { BUILD, describeBuild, sameBuild, type BuildInfo } from "../protocol/version.ts";

let said = false;

export async function sayIfOtherBuild(client: Client, where: string, err: (s: string) => void): Promise<void> {
  if (said) return;
  let theirs: BuildInfo;
  try {
    const ping = await client.call("system.ping");
    // A daemon from before builds were reported gives its version alone.
    theirs = { version: ping.version, commit: ping.commit ?? "unknown", target: ping.target ?? "unknown", bun: ping.bun ?? null };
  } catch {
    return; // the command itself will meet and report whatever is wrong
  }
  if (sameBuild(BUILD, theirs)) return;
  said = true;
  err(
    `termd: note: the daemon on ${where} is ${describeBuild(theirs)}; this is ${describeBuild(BUILD)}: \`termd daemon restart\` replaces it with this build and keeps your sessions running`,
  );
}
