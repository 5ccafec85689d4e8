// termd screenshot's flags and errors, against a daemon of this file's. (The pictures themselves,
// and -o with each extension: test/screenshot.test.ts.)
import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { sharedDaemon } from "../../../test/harness.ts";

const s = sharedDaemon();

test("--format wins over the file's name; --json says what was written; a PNG to a pipe is its bytes", async () => {
  await s.c.call("session.create", { name: "p", command: ["sh", "-c", "echo shot; exec sleep 100"], cwd: s.dir, rows: 2, cols: 4 });
  expect((await s.c.call("session.wait", { session: "p", text: "shot" })).outcome).toBe("matched");
  const file = join(s.dir, "picture.svg");
  const r = await s.d.run(["screenshot", "p", "-o", file, "--format", "png", "--scale", "2", "--json"]);
  expect(r).toMatchObject({ code: 0, stderr: "" });
  expect(JSON.parse(r.stdout)).toEqual({ format: "png", width: 4 * 9 * 2, height: 2 * 18 * 2, path: file });
  expect(readFileSync(file).subarray(1, 4).toString()).toBe("PNG");
  const piped = await s.d.cli(["screenshot", "p", "--format", "png"]);
  expect({ code: piped.code, magic: piped.stdout.slice(1, 4) }).toEqual({ code: 0, magic: "PNG" });
});

test("a PNG is not written to a terminal: a usage error there", async () => {
  const r = await s.d.cliOnTerminal(["screenshot", "p", "--format", "png"]);
  expect(r).toMatchObject({ code: 2, screen: expect.stringContaining("termd screenshot: a PNG would garble the terminal") });
});

test("screenshot: a bad format or scale is a usage error; a file it cannot write fails (1); an unknown session 4", async () => {
  const cases: [string[], string][] = [
    [["--format", "bmp"], 'termd screenshot: --format is svg or png, not "bmp"'],
    [["-o", "shot.txt"], 'termd screenshot: cannot tell the format from "shot.txt": name a .svg or .png file, or give --format svg|png'],
    [["--scale", "5"], 'termd screenshot: --scale is a number from 0.25 to 4, not "5"'],
    [["--scale", "x"], 'termd screenshot: --scale is a number from 0.25 to 4, not "x"'],
  ];
  for (const [flags, message] of cases) {
    const r = await s.d.run(["screenshot", "p", ...flags]);
    expect({ flags, code: r.code, line: r.stderr.split("\n")[0] }).toEqual({ flags, code: 2, line: message });
  }
  const nowhere = join(s.dir, "missing", "shot.svg");
  expect(await s.d.run(["screenshot", "p", "-o", nowhere])).toMatchObject({
    code: 1,
    stderr: expect.stringContaining(`termd screenshot: cannot write ${nowhere}: `),
  });
  expect(existsSync(nowhere)).toBe(false);
  expect((await s.d.run(["screenshot", "nope", "-o", join(s.dir, "n.svg")])).code).toBe(4);
});
