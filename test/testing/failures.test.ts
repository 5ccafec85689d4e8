// What a failing test leaves, seen from outside its `bun test` process: the failure message shows
// the screen and where the artifacts are, the artifacts are there, a passing test leaves nothing,
// and nothing keeps running: not the session of a test that threw or timed out, not the private
// daemon once the process ended.
import { expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CELL_H, CELL_W } from "../../src/render/svg.ts";
import { TestDaemon } from "../harness.ts";
import { readPng } from "../png-reader.ts";
import { alive, eventually, TestProject } from "./subprocess.ts";

test("a failing match prints the screen and writes the artifacts; a passing test writes none", async () => {
  using project = new TestProject();
  project.write(
    "screen.test.ts",
    `import { test, expect } from "bun:test";
import { launch } from "LIBRARY";

test("passes", async () => {
  await using t = await launch(["cat"], { rows: 5, cols: 30 });
  await t.type("fine\\r");
  await expect(t).toShowText("fine");
});

test("fails to find text", async () => {
  await using t = await launch(["sh", "-c", "printf 'first line\\\\nsecond line'; exec cat"], { rows: 5, cols: 30 });
  await t.waitForText("second");
  await t.waitForText("third", { timeout: 200 }).catch(() => {}); // a timeout the test gets over
  await expect(t).toShowText("third", { timeout: 300 });
});
`,
  );
  const r = await project.bunTest("screen.test.ts");
  expect(r.code).toBe(1);
  expect(r.output).toContain("(pass) passes");
  expect(r.output).toContain("(fail) fails to find text");
  // The message: what was expected, then the whole screen, rows numbered, the cursor marked.
  expect(r.output).toContain('expected the screen to show "third" (waited');
  expect(r.output).toMatch(/0│first line\n.*1│second line\n.*│ {11}\^ cursor/);
  const dir = join(project.dir, "test-results", "fails-to-find-text");
  expect(r.output).toContain(`artifacts (if the test fails): ${dir}/`);
  expect(r.output).toContain("test-results/fails-to-find-text/terminal.cast");
  // Only the failing test has a folder; its files are the recording, the screen, the timed-out waits.
  expect(readdirSync(join(project.dir, "test-results"))).toEqual(["fails-to-find-text"]);
  expect(readdirSync(dir).sort()).toEqual([
    "terminal.cast",
    "terminal.png",
    "terminal.screen.txt",
    "terminal.svg",
    "terminal.wait-1.txt",
    "terminal.wait-2.txt",
  ]);
  const cast = readFileSync(join(dir, "terminal.cast"), "utf8").trim().split("\n");
  expect(JSON.parse(cast[0]!)).toMatchObject({ version: 2, width: 30, height: 5 });
  expect(
    cast
      .slice(1)
      .map((l) => JSON.parse(l)[2])
      .join(""),
  ).toContain("second line");
  expect(readFileSync(join(dir, "terminal.svg"), "utf8")).toContain(">secondline</text>"); // spaces are positions in SVG
  expect(readPng(readFileSync(join(dir, "terminal.png")))).toMatchObject({ width: 30 * CELL_W, height: 5 * CELL_H });
  expect(readFileSync(join(dir, "terminal.screen.txt"), "utf8")).toBe("# termd screen 5x30, cursor 1,11\nfirst line\nsecond line\n\n\n\n");
  expect(readFileSync(join(dir, "terminal.wait-1.txt"), "utf8")).toStartWith(
    '# timed out after 200 ms waiting for "third"\n# termd screen 5x30',
  );
  expect(readFileSync(join(dir, "terminal.wait-2.txt"), "utf8")).toStartWith('# expected the screen to show "third"');
}, 20_000);

test("a wait's default timeout is 60% of the runner's test timeout; a wait that fails says so with its screen and artifacts, before the runner's timeout", async () => {
  using project = new TestProject();
  project.write(
    "slow.test.ts",
    `import { expect, test } from "bun:test";
import { launch } from "LIBRARY";

test("waits for what never shows", async () => {
  await using t = await launch(["sh", "-c", "echo here; exec cat"], { rows: 5, cols: 30 });
  expect(t.timeout).toBe(9000);
  await t.waitForText("never", { timeout: 300 });
});
`,
  );
  // The default is read from bun's --timeout: 60% of 15 s (the rule itself:
  // src/testing/terminal.test.ts). The wait that fails is given a short one, so the run does not
  // sit it out, and the rest of the 15 s starts the daemon and the program however loaded the machine.
  const r = await project.bunTest("slow.test.ts", { args: ["--timeout", "15000"] });
  expect(r.code).toBe(1);
  expect(r.output).toContain('timed out after 300 ms waiting for "never"');
  expect(r.output).toMatch(/0│here\n/);
  expect(r.output).not.toContain("timed out after 15000ms");
  const dir = join(project.dir, "test-results", "waits-for-what-never-shows");
  expect(readFileSync(join(dir, "terminal.wait-1.txt"), "utf8")).toStartWith(
    '# timed out after 300 ms waiting for "never"\n# termd screen 5x30, cursor 1,0\nhere\n',
  );
}, 60_000);

test("each test's artifacts have a folder of its own: test.each cases by their formatted titles, tests in describe blocks by their full names", async () => {
  using project = new TestProject();
  project.write(
    "names.test.ts",
    `import { describe, expect, test } from "bun:test";
import { launch } from "LIBRARY";
import { test as wrapped } from "LIBRARY/../bun.ts";

const fails = async (text: string) => {
  await using t = await launch(["sh", "-c", \`echo \${text}; exec cat\`], { rows: 3, cols: 20 });
  await expect(t).toShowText("never", { timeout: 100 });
};

// (Each body awaits: a body that returns fails(…) would call it as a tail call, leaving no frame of its own on the stack.)
test.each(["bash", "zsh"])("shell %s", async (shell) => {
  await fails(\`in-\${shell}\`);
});
wrapped.each([1, 2])("wrapped %d", async () => {
  await fails("wrapped");
});
// Equal rows: each case its own index.
test.each([["x"], ["x"]])("row %# of %s", async (v) => {
  await fails(\`row-\${v}\`);
});

describe("one", () => {
  test("same title", async () => {
    await fails("in-one");
  });
});
describe("two", () => {
  describe("inner", () => {
    wrapped("same title", async () => {
      await fails("in-two");
    });
  });
});

test("twice", async () => {
  await fails("first");
});
test("twice", async () => {
  await fails("second");
});
`,
  );
  const r = await project.bunTest("names.test.ts");
  expect(r.output).toContain('termd/testing: "shell bash" failed');
  expect(r.output).toContain('termd/testing: "two > inner > same title" failed');
  expect(r.output).toContain("(fail) row 1 of x");
  const results = join(project.dir, "test-results");
  expect(readdirSync(results).sort().join(" ")).toBe(
    "one-same-title row-0-of-x row-1-of-x shell-bash shell-zsh twice twice-2 two-inner-same-title wrapped-1 wrapped-2",
  );
  const screen = (folder: string) => readFileSync(join(results, folder, "terminal.screen.txt"), "utf8");
  expect(screen("shell-zsh")).toContain("\nin-zsh\n");
  expect(screen("one-same-title")).toContain("\nin-one\n");
  expect(screen("two-inner-same-title")).toContain("\nin-two\n");
  expect(screen("twice-2")).toContain("\nsecond\n");
}, 30_000);

const LEAKY = `import { test, expect } from "bun:test";
import { launch } from "LIBRARY";
import { connect } from "LIBRARY/../../client/index.ts";

let socket = "";
let pid = 0;

test("throws", async () => {
  await using t = await launch(["sh", "-c", "echo pid=$$; exec sleep 987"]);
  socket = t.socket;
  pid = Number((await t.waitForText(/pid=(\\d+)/)).text.slice(4));
  console.log("PID " + pid + " SOCKET " + socket);
  throw new Error("boom");
});

test("times out", async () => {
  const t = await launch(["sh", "-c", "echo waiting; exec sleep 988"]);
  await t.waitForText("waiting");
  await t.waitForText("never", { timeout: 5000 });
}, 300);

test("the sessions of both are gone, their programs too", async () => {
  const c = await connect(socket);
  const { sessions } = await c.call("session.list");
  c.close();
  expect(sessions).toEqual([]);
  expect(() => process.kill(pid, 0)).toThrow();
});
`;

test("a test that throws or times out still removes its session and ends its program", async () => {
  using project = new TestProject();
  project.write("leaky.test.ts", LEAKY);
  await using d = await TestDaemon.start();
  const r = await project.bunTest("leaky.test.ts", { env: { TERMD_SOCKET: d.socket } });
  expect(r.output).toContain("(fail) throws");
  expect(r.output).toContain("(fail) times out");
  // The wait the test's end cut short says so, not that the program exited (the hangup its removal sent).
  expect(r.output).toContain('the test ended (timed out) and closed its terminal while waiting for "never"');
  expect(r.output).not.toContain("the program exited");
  expect(r.output).toContain("(pass) the sessions of both are gone, their programs too");
  const pid = Number(/PID (\d+)/.exec(r.output)?.[1]);
  expect(alive(pid)).toBe(false);
  // TERMD_SOCKET's daemon was used, and is left running, without the tests' sessions.
  expect(r.output).toContain(`SOCKET ${d.socket}`);
  const c = await d.client();
  expect((await c.call("session.list")).sessions).toEqual([]);
  // Nor is anything left in its temp dir (it made a folder there for each run, left empty).
  expect(project.leftovers()).toEqual([]);
  // The timed-out test's terminal was closed after the test, with its artifacts.
  expect(readdirSync(join(project.dir, "test-results", "times-out")).sort()).toEqual([
    "terminal.cast",
    "terminal.png",
    "terminal.screen.txt",
    "terminal.svg",
  ]);
  expect(readFileSync(join(project.dir, "test-results", "times-out", "terminal.screen.txt"), "utf8")).toContain("\nwaiting\n");
}, 20_000);

test("a test process killed with a zsh preset open under TERMD_SOCKET leaves no files in its temp dir", async () => {
  using project = new TestProject();
  project.write(
    "killed.test.ts",
    `import { test } from "bun:test";
import { launch } from "LIBRARY";

test("killed", async () => {
  const t = await launch.shell("zsh");
  await t.submit('echo "dir=$ZDOTDIR"', { waitFor: /^dir=/m });
  console.log((await t.screen()).text);
  process.kill(process.pid, "SIGKILL");
});
`,
  );
  await using d = await TestDaemon.start();
  const r = await project.bunTest("killed.test.ts", { env: { TERMD_SOCKET: d.socket } });
  expect(r.code).not.toBe(0);
  // The shell's ZDOTDIR was in a folder of the process's own in the temp dir, which its guard removes.
  const zdotdir = /^dir=(\S+)$/m.exec(r.output)?.[1];
  expect(zdotdir?.startsWith(`${project.tmp}/termd-testing-`)).toBe(true);
  expect(await eventually(() => project.leftovers().length === 0)).toBe(true);
}, 20_000);

test("the private daemon serves each session on a temp socket (TERMD_DEBUG says which) and ends with the test process", async () => {
  using project = new TestProject();
  project.write("leaky.test.ts", LEAKY);
  const r = await project.bunTest("leaky.test.ts", { env: { TERMD_DEBUG: "1" } });
  expect(r.output).toContain("(pass) the sessions of both are gone, their programs too");
  const socket = /private daemon on (\S+)/.exec(r.output)?.[1];
  expect(socket).toBeDefined();
  expect(r.output).toMatch(
    new RegExp(`session throws-[0-9a-f]{8} on ${socket!.replaceAll(".", "\\.")} \\(watch: termd attach throws-[0-9a-f]{8} --socket`),
  );
  // Once the process is gone its daemon stops and its temp folder goes.
  expect(await eventually(() => !existsSync(join(socket!, "..")))).toBe(true);
  expect(project.leftovers()).toEqual([]);
  expect(alive(Number(/PID (\d+)/.exec(r.output)?.[1]))).toBe(false);
}, 20_000);
