// Screen snapshots: plain text files beside the test, `__screens__/TEST-FILE/NAME.txt`, a header
// with the size and the cursor, then the rows (`NAME.styled.txt` for the style-aware kind, colours
// and attributes kept as SGR sequences, which `cat` shows in colour). One folder per test file, so
// a file's snapshots are known to be its own: once the whole file ran, a snapshot in its folder
// that none of its tests compared is obsolete (reported; removed with -u; a failure under CI).
//
// Updating: `TERMD_UPDATE_SNAPSHOTS=1`, or the runner's flag (runner.ts). A missing snapshot is
// written on first use, except under CI (`bun test --ci`, or the CI variable set).
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { commandLine, runner } from "./runner.ts";

export function updatingSnapshots(): boolean {
  return /^(1|true|yes)$/i.test(process.env.TERMD_UPDATE_SNAPSHOTS ?? "") || runner().updateSnapshots();
}

/** `bun test --ci` or the CI variable (as CI services set it, and vitest reads it): snapshots must exist already, and none be obsolete. */
export function ciMode(): boolean {
  const ci = process.env.CI ?? "";
  return commandLine().includes("--ci") || (ci !== "" && !/^(0|false|no)$/i.test(ci));
}

/** The folder of a test file's snapshots. */
export function snapshotDir(testFile: string): string {
  return join(dirname(testFile), "__screens__", basename(testFile));
}

/** termd/testing's former place for `path` (`__screens__/NAME.txt` beside the test, before each test file had a folder), when a file is there. */
export function formerSnapshot(testFile: string, path: string): string | undefined {
  const former = join(dirname(testFile), "__screens__", basename(path));
  return existsSync(former) ? former : undefined;
}

/** The snapshots each test file compared (or wrote) in this process. */
const used = new Map<string, Set<string>>();

export function noteSnapshot(testFile: string, path: string): void {
  let set = used.get(testFile);
  if (!set) used.set(testFile, (set = new Set()));
  set.add(path);
}

/**
 * A test file is over. When all of its tests ran (`complete`: none skipped or filtered out), its
 * snapshots that none compared are obsolete: reported, removed when updating, thrown under CI (the
 * runner's hook then fails the file). Reported once per file.
 */
export function testFileDone(testFile: string, complete: boolean): void {
  if (!complete || done.has(testFile)) return;
  done.add(testFile);
  const dir = snapshotDir(testFile);
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith(".txt"));
  } catch {
    return;
  }
  const mine = used.get(testFile) ?? new Set();
  const obsolete = names.filter((n) => !mine.has(join(dir, n))).sort();
  if (obsolete.length === 0) return;
  const where = relative(process.cwd(), dir) || dir;
  const list = obsolete.join(", ");
  if (updatingSnapshots()) {
    for (const n of obsolete) rmSync(join(dir, n), { force: true });
    console.error(`termd/testing: removed ${obsolete.length} obsolete snapshot${obsolete.length === 1 ? "" : "s"} from ${where}: ${list}`);
    return;
  }
  const message = `${obsolete.length} obsolete snapshot${obsolete.length === 1 ? "" : "s"} in ${where} (no test of ${basename(testFile)} compared ${obsolete.length === 1 ? "it" : "them"}): ${list}; remove ${obsolete.length === 1 ? "it" : "them"}, or run with -u (or TERMD_UPDATE_SNAPSHOTS=1)`;
  if (ciMode()) throw new Error(`termd/testing: ${message} (a failure under CI)`);
  console.error(`termd/testing: ${message}`);
}

const done = new Set<string>();

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
