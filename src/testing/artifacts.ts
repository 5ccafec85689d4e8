// What a failed test leaves for a person to look at, in test-results/<test name>/: per terminal
// the whole session as an asciicast recording (from the daemon's timing journal, which every
// session keeps: `asciinema play` replays it), the final screen as text, and the screen at each
// wait that timed out. A passing test writes nothing, and removes what an earlier failing run of
// it left.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { Client } from "../client/client.ts";
import { screenFile, type ScreenLike } from "./screen-text.ts";
import type { TestRun } from "./test-context.ts";

export interface TimedOutWait {
  what: string;
  screen: ScreenLike;
}

/** Folders this process already emptied: a folder left by an earlier run is cleared once, not per terminal. */
const cleared = new Set<string>();

/** A passing test: what an earlier failing run of it left is stale. */
export function clearArtifacts(run: TestRun): void {
  const dir = run.artifactDir;
  if (cleared.has(dir)) return;
  cleared.add(dir);
  rmSync(dir, { recursive: true, force: true });
}

async function recording(client: Client, session: string): Promise<string> {
  let out = "";
  for (let from = 0; ; ) {
    const page = await client.call("session.cast", { session, from });
    if (page.header) out += page.header + "\n";
    for (const l of page.lines) out += l + "\n";
    if (page.eof || page.to <= from) return out;
    from = page.to;
  }
}

/** Writes the terminal's artifacts and says where; errors here never hide the test's own failure. */
export async function writeArtifacts(client: Client, session: string, label: string, run: TestRun, waits: TimedOutWait[]): Promise<string[]> {
  const dir = run.artifactDir;
  const written: string[] = [];
  try {
    if (!cleared.has(dir)) {
      cleared.add(dir);
      rmSync(dir, { recursive: true, force: true });
    }
    mkdirSync(dir, { recursive: true });
    const put = (name: string, data: string) => {
      const path = join(dir, name);
      writeFileSync(path, data);
      written.push(path);
    };
    put(`${label}.cast`, await recording(client, session));
    const screen = await client.call("session.screen", { session });
    put(`${label}.screen.txt`, screenFile(screen));
    waits.forEach((w, i) => put(`${label}.wait-${i + 1}.txt`, `# ${w.what}\n${screenFile(w.screen)}`));
  } catch (err) {
    console.error(`termd/testing: could not write all the artifacts of "${run.name}" in ${dir}: ${(err as Error).message}`);
  }
  if (written.length) console.error(`termd/testing: "${run.name}" failed; ${label}'s artifacts:\n${written.map((p) => `  ${relative(process.cwd(), p)}`).join("\n")}`);
  return written;
}
