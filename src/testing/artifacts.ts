// What a test leaves for a person to look at, in test-results/<test name>/: per terminal the whole
// session as an asciicast recording (from the daemon's timing journal, which every session keeps:
// `termd show-trace` and `asciinema play` replay it), the final screen as text, SVG and PNG, and
// the screen at each wait that timed out. Kept as the terminal's trace says (terminal.ts): by
// default only for a failed test; a passing test then removes what an earlier failing run left.
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
export async function writeArtifacts(
  client: Client,
  session: string,
  label: string,
  run: TestRun,
  waits: TimedOutWait[],
): Promise<string[]> {
  const dir = run.artifactDir;
  const written: string[] = [];
  try {
    if (!cleared.has(dir)) {
      cleared.add(dir);
      rmSync(dir, { recursive: true, force: true });
    }
    mkdirSync(dir, { recursive: true });
    const put = (name: string, data: string | Uint8Array) => {
      const path = join(dir, name);
      writeFileSync(path, data);
      written.push(path);
    };
    // Each on its own: one that cannot be made (a PNG too large to draw) leaves the others.
    const steps: [string, () => Promise<string | Uint8Array>][] = [
      [`${label}.cast`, () => recording(client, session)],
      [`${label}.screen.txt`, async () => screenFile(await client.call("session.screen", { session }))],
      [`${label}.svg`, () => client.screenshot(session, { format: "svg" })],
      [`${label}.png`, () => client.screenshot(session, { format: "png" })],
    ];
    for (const [i, w] of waits.entries()) steps.push([`${label}.wait-${i + 1}.txt`, async () => `# ${w.what}\n${screenFile(w.screen)}`]);
    for (const [name, make] of steps) {
      try {
        put(name, await make());
      } catch (err) {
        console.error(`termd/testing: could not write ${join(dir, name)}: ${(err as Error).message}`);
      }
    }
  } catch (err) {
    console.error(`termd/testing: could not write the artifacts of "${run.name}" in ${dir}: ${(err as Error).message}`);
  }
  if (written.length && run.failed)
    console.error(
      `termd/testing: "${run.name}" failed; ${label}'s artifacts (termd show-trace ${relative(process.cwd(), dir) || "."} replays it):\n${written.map((p) => `  ${relative(process.cwd(), p)}`).join("\n")}`,
    );
  return written;
}
