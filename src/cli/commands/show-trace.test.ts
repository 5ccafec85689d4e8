// termd show-trace: no daemon needed, a recording on disk. Its replay writes to standard output
// itself, so it runs through the real entry; its errors run in this process.
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runInProcess, runProcess, SOURCE_BIN } from "../../../test/harness.ts";

const dir = mkdtempSync(join(tmpdir(), "termd-show-trace-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function cast(path: string, size: { width: number; height: number }, events: [number, string, string][]): void {
  writeFileSync(path, [JSON.stringify({ version: 2, ...size }), ...events.map((e) => JSON.stringify(e))].join("\n") + "\n");
}

test("show-trace replays each recording of a folder by name: its output only, a line on stderr naming it", async () => {
  const test = join(dir, "a-test");
  mkdirSync(test);
  cast(join(test, "2-second.cast"), { width: 40, height: 10 }, [[0.5, "o", "second"]]);
  cast(join(test, "1-first.cast"), { width: 80, height: 24 }, [
    [0.1, "o", "\x1b[1mone"],
    [0.2, "i", "typed"],
    [0.3, "r", "30x100"],
    [60, "o", " two\r\n"],
  ]);
  writeFileSync(join(test, "screen.txt"), "not a recording");
  // --max-idle 0: every pause shortened to nothing.
  // A speed is any number above 0, not only a whole one.
  expect(await runProcess([...SOURCE_BIN, "show-trace", test, "--max-idle", "0", "--speed", "0.5"])).toEqual({
    code: 0,
    stdout: "\x1b[1mone two\r\n\x1b[0m\r\nsecond\x1b[0m\r\n",
    stderr: "── 1-first.cast: 24x80 ──\n── 2-second.cast: 10x40 ──\n",
  });
});

test("show-trace: no path, a missing one, a folder with no recording, a file that is not asciicast v2 and bad speeds are usage errors", async () => {
  const empty = join(dir, "empty");
  mkdirSync(empty);
  writeFileSync(join(dir, "v1.cast"), `${JSON.stringify({ version: 1 })}\n`);
  const cases: [string[], string][] = [
    [[], "name a test's folder (test-results/TEST) or a .cast file"],
    [[join(dir, "none")], `${join(dir, "none")}: no such file or folder`],
    [[empty], `${empty} holds no recording (.cast): was the test's trace kept?`],
    [[join(dir, "v1.cast")], `${join(dir, "v1.cast")} is not an asciicast v2 recording`],
    [[empty, "--speed", "0"], "--speed is a number above 0"],
    [[empty, "--speed", "fast"], "--speed is a number above 0"],
    [[empty, "extra"], "unexpected argument extra"],
  ];
  for (const [args, message] of cases) {
    const r = await runInProcess(["show-trace", ...args]);
    expect({ args, code: r.code, line: r.stderr.split("\n")[0] }).toEqual({ args, code: 2, line: `termd show-trace: ${message}` });
  }
});
