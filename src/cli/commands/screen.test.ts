// termd screen, run as a user runs it, against a daemon of this file's.
import { expect, test } from "bun:test";
import { sharedDaemon } from "../../../test/harness.ts";

const s = sharedDaemon();

test("screen prints every row as a line of text, a blank last one too; --cursor adds where the cursor is and the screen's hash", async () => {
  const program = "printf 'one\\n\\033[31mtwo\\033[0m'; exec sleep 100";
  await s.c.call("session.create", { name: "t", command: ["sh", "-c", program], cwd: s.dir, rows: 4, cols: 20 });
  await s.c.call("session.wait", { session: "t", text: "two" });
  expect(await s.d.cli(["screen", "t"])).toEqual({ code: 0, stdout: "one\ntwo\n\n\n", stderr: "" });
  const { hash } = await s.c.call("session.screen", { session: "t" });
  expect((await s.d.run(["screen", "t", "--cursor"])).stdout).toBe(`one\ntwo\n\n\ncursor 1,3  hash ${hash}\n`);
  expect((await s.d.run(["screen", "t", "--ansi"])).stdout).toContain("\x1b[31mtwo");
});

test("screen --json prints the snapshot; --scrollback adds the lines above the screen", async () => {
  const program = "printf '\\033[?25l'; seq 1 6; exec sleep 100";
  await s.c.call("session.create", { name: "long", command: ["sh", "-c", program], cwd: s.dir, rows: 3, cols: 10 });
  // Until the line end after the 6 is in too: the terminal writes it to the PTY apart from the 6.
  let w = await s.c.call("session.wait", { session: "long", regex: "^6$" });
  while (w.screen.cursor.row !== 2 || w.screen.lines[1] !== "6")
    w = await s.c.call("session.wait", { session: "long", changed_from: w.screen.hash });
  const snap = JSON.parse((await s.d.run(["screen", "long", "--json", "--scrollback", "2"])).stdout);
  expect(snap).toMatchObject({
    lines: ["3", "4", "5", "6", ""],
    scrollback_lines: 2,
    size: { rows: 3, cols: 10 },
    cursor: { row: 2, col: 0, visible: false },
  });
  expect((await s.d.run(["screen", "long", "--scrollback", "2"])).stdout).toBe("3\n4\n5\n6\n\n");
  expect((await s.d.run(["screen", "long", "--cursor"])).stdout).toMatch(/\ncursor 2,0 hidden {2}hash [0-9a-f]{16}\n$/);
});

test("screen: bad flags are usage errors (2), an unknown session not found (4)", async () => {
  expect((await s.d.run(["screen"])).code).toBe(2);
  expect(await s.d.run(["screen", "t", "--scrollback", "many"])).toMatchObject({
    code: 2,
    stderr: expect.stringContaining("--scrollback"),
  });
  expect((await s.d.run(["screen", "nope"])).code).toBe(4);
});
