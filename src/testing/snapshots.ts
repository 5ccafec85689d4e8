// Screen snapshots: plain text files beside the test, `__screens__/NAME.txt`, a header with the
// size and the cursor, then the rows (`NAME.styled.txt` for the style-aware kind, colours and
// attributes kept as SGR sequences, which `cat` shows in colour).
//
// Updating: `TERMD_UPDATE_SNAPSHOTS=1`, or `bun test --update-snapshots` / `-u`. Bun hands a test
// no sign of that flag (process.argv holds only the runtime and the test file), so it is read from
// the process's own command line, /proc/self/cmdline (Linux); elsewhere use the variable. A missing
// snapshot is written on first use, except under `bun test --ci`.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { commandLine, runner } from "./runner.ts";

export function updatingSnapshots(): boolean {
  return /^(1|true|yes)$/i.test(process.env.TERMD_UPDATE_SNAPSHOTS ?? "") || runner().updateSnapshots();
}

/** `bun test --ci`: snapshots must exist already. */
export function ciMode(): boolean {
  return commandLine().includes("--ci");
}

export function snapshotPath(dir: string, name: string, styled: boolean): string {
  return join(dir, `${name}${styled ? ".styled" : ""}.txt`);
}

export function readSnapshot(path: string): string | undefined {
  return existsSync(path) ? readFileSync(path, "utf8") : undefined;
}

export function writeSnapshot(path: string, content: string): void {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, content);
}

/** The rows that differ, as `-`/`+` pairs with their row numbers (the header is row "h"). */
export function snapshotDiff(expected: string, received: string): string {
  const a = expected.replace(/\n$/, "").split("\n");
  const b = received.replace(/\n$/, "").split("\n");
  const out: string[] = [];
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] === b[i]) continue;
    const at = i === 0 ? "  h" : String(i - 1).padStart(3);
    if (a[i] !== undefined) out.push(`- ${at}│${a[i]}`);
    if (b[i] !== undefined) out.push(`+ ${at}│${b[i]}`);
  }
  return out.join("\n");
}
