// termd/testing driving real programs: vim, less, python3 and a bash prompt, through the private
// daemon the library starts on its own. Every step waits for the screen, never for time.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { launch, WaitError } from "termd/testing";

const BASH = ["bash", "--norc", "--noprofile"];
const tmp = mkdtempSync(join(tmpdir(), "termd-testing-programs-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

test("vim: insert text, write and quit; the file holds it and vim exits 0", async () => {
  const path = join(tmp, "notes.txt");
  await using t = await launch(["vim", "-u", "NONE", "-i", "NONE", "-N", path], { rows: 12, cols: 60 });
  await t.waitForText("~");
  await t.type("ihello from termd/testing");
  await t.press("Escape");
  await expect(t).toShowText("hello from termd/testing", { row: 0 });
  await t.type(":wq");
  await t.press("Enter");
  expect(await t.exited()).toEqual({ code: 0, signal: null });
  expect(readFileSync(path, "utf8")).toBe("hello from termd/testing\n");
});

test("less: pages forward, searches, and quits on q", async () => {
  const path = join(tmp, "lines.txt");
  writeFileSync(path, Array.from({ length: 100 }, (_, i) => `line ${i + 1}`).join("\n") + "\n");
  await using t = await launch(["less", path], { rows: 10, cols: 40, env: { LESS: "" } });
  await t.waitForText("line 9");
  expect(await t.line(0)).toBe("line 1");
  await t.press("Space", { waitFor: "line 18" });
  expect(await t.line(0)).toBe("line 10");
  await t.type("/line 50");
  await t.press("Enter", { waitFor: /^line 50$/ });
  await expect(t).toShowText("line 50", { row: 0 });
  await t.type("q");
  expect((await t.exited()).code).toBe(0);
});

test("python3: a REPL answers, keeps state, and exits on Ctrl-D", async () => {
  await using t = await launch(["python3", "-q"], { env: { PYTHONSTARTUP: "" } });
  await t.waitForText(">>> ");
  // The next prompt, which comes after the answer: typed before it, a line is echoed twice.
  await t.submit("x = 6 * 7; print(x)", { waitFor: /^>>> $/ });
  await expect(t).toShowText(/^42$/, { row: 1 });
  const m = await t.submit("print(x + 1)", { waitFor: /^43$/ });
  expect(m).toEqual({ row: 3, col: 0, text: "43" });
  await t.waitForText(/^>>> $/, { row: 4 });
  await t.press("Ctrl+D");
  expect(await t.exited()).toEqual({ code: 0, signal: null });
});

test("bash: a wait tied to Enter ignores the prompt already on screen and waits for the next", async () => {
  await using t = await launch(BASH, { env: { PS1: "$ " }, rows: 10, cols: 50 });
  await t.waitForText("$ ");
  await t.type("sleep 0.3; echo done");
  // The prompt "$ " is on the screen before Enter: a plain wait would answer at once.
  const m = await t.press("Enter", { waitFor: "$ " });
  expect(m).toEqual({ row: 2, col: 0, text: "$ " });
  expect((await t.screen()).lines.slice(0, 3).map((l) => l.trimEnd())).toEqual(["$ sleep 0.3; echo done", "done", "$"]);
  await expect(t).toHaveCursorAt(2, 2);
  // A change is seen from its baseline too, however fast the echo comes.
  await t.type("x", { waitFor: { change: true } });
  expect(await t.line(2)).toBe("$ x");
  await t.press("Ctrl+U", "Ctrl+D");
  expect((await t.exited()).code).toBe(0);
});

test("bash: screen, cell styles, title, resize and waits", async () => {
  await using t = await launch("exec bash --norc --noprofile", { env: { PS1: "$ " }, rows: 8, cols: 40 });
  await t.waitForText("$ ");
  await t.submit(`printf '\\e]0;my title\\a\\e[1;31mRED\\e[0m \\e[44mblue\\e[0m 界\\n'`, { waitFor: /^\$ $/ });
  await expect(t).toHaveTitle("my title");
  await expect(t).toShowText("RED", { fg: "red", bold: true });
  await expect(t).toShowText("blue", { bg: 4 });
  await expect(t).not.toShowText("blue", { bold: true, timeout: 300 });
  const row = (await t.screen()).lines.findIndex((l) => l.startsWith("RED"));
  expect(await t.cell(row, 0)).toEqual({
    char: "R",
    width: 1,
    fg: 1,
    bg: null,
    bold: true,
    italic: false,
    underline: false,
    inverse: false,
  });
  expect(await t.cell(row, 4)).toMatchObject({ char: "b", bg: 4, bold: false });
  expect(await t.cell(row, 9)).toMatchObject({ char: "界", width: 2 });
  await t.waitForIdle(100);
  await t.resize(6, 30);
  // Each command waits for the prompt after it: typed ahead of the prompt, text is echoed twice.
  await t.submit("stty size", { waitFor: /^\$ $/ });
  await expect(t).toShowText(/^6 30$/);
  // A builtin: a Ctrl-C that comes before a child would have the terminal is bash's to answer.
  await t.submit("read -r line", { waitFor: { idle: 100 } });
  await t.press("Ctrl+C", { waitFor: /^\$ $/ });
  await t.submit("exit 3");
  expect(await t.exited()).toEqual({ code: 3, signal: null });
});

test("signal ends a program; exited() gives the signal", async () => {
  await using t = await launch(["sleep", "30"]);
  await t.signal("TERM");
  expect(await t.exited()).toEqual({ code: null, signal: "SIGTERM" });
});

test("a wait that times out throws a WaitError showing the screen", async () => {
  await using t = await launch(["cat"], { rows: 4, cols: 20 });
  await t.type("abc\r", { waitFor: "abc" });
  const err = await t.waitForText("never", { timeout: 200 }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WaitError);
  expect((err as WaitError).message).toContain('timed out after 200 ms waiting for "never"');
  expect((err as WaitError).message).toContain("0│abc");
  expect((err as WaitError).screen.lines[1]).toBe("abc");
});
