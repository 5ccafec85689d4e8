// termd attach through a real outer terminal: the outer terminal is itself a termd session (a
// real PTY running bash), in which `termd attach` runs as a person would run it.
import { expect, test } from "bun:test";
import { hostname } from "node:os";
import { join } from "node:path";
import type { Client } from "../src/client/index.ts";
import { SOURCE_BIN, TestDaemon } from "./harness.ts";

const ATTACH = SOURCE_BIN.map((a) => `'${a}'`).join(" ") + " attach";

async function outerShell(c: Client, name: string, rows: number, cols: number): Promise<void> {
  await c.call("session.create", { name, command: ["bash", "--norc", "--noprofile"], env: { PS1: `${name}$ ` }, rows, cols });
  await c.call("session.wait", { session: name, text: `${name}$ ` });
}

/** Waits (a bounded poll: no event tells of a resize) until the session has `size`. */
async function untilSize(c: Client, session: string, size: { rows: number; cols: number }): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const now = (await c.call("session.info", { session })).size;
    if (now.rows === size.rows && now.cols === size.cols) return;
    await c.call("session.wait", { session, activity: true, timeout_ms: 20 });
  }
  expect((await c.call("session.info", { session })).size).toEqual(size);
}

/** Runs `termd attach ARGS` (after `before`, such as `env -u USER`) in the terminal `outer`; returns once it painted the prompt of the session ARGS names first, a bash outerShell started. */
async function attachIn(c: Client, outer: string, args: string, before = ""): Promise<void> {
  await typeLine(c, outer, `${before}${ATTACH} ${args}`);
  await c.call("session.wait", { session: outer, text: `${args.split(" ")[0]}$ ` });
}

async function typeLine(c: Client, session: string, line: string): Promise<void> {
  await c.call("session.input", { session, text: line });
  await c.call("session.input", { session, keys: ["Enter"] });
}

test("attach paints vim at once, typing reaches it, Ctrl-\\ detaches and restores the terminal, attach again", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  await c.call("session.create", { name: "ed", command: ["vim", "--clean", join(d.dir, "notes.txt")] });
  await c.call("session.wait", { session: "ed", text: "notes.txt" });
  await c.call("session.input", { session: "ed", keys: ["i"] });
  await c.call("session.input", { session: "ed", text: "written before attach" });

  await outerShell(c, "outer", 24, 80);
  await typeLine(c, "outer", "echo before-attach");
  await c.call("session.wait", { session: "outer", regex: "^before-attach$" });
  await typeLine(c, "outer", `${ATTACH} ed`);
  // What was on vim's screen before attaching is painted from the screen, not replayed bytes.
  const painted = await c.call("session.wait", { session: "outer", text: "written before attach" });
  expect(painted.outcome).toBe("matched");
  expect(painted.screen.alternate).toBe(true);

  await c.call("session.input", { session: "outer", text: " and typed through attach" });
  expect((await c.call("session.wait", { session: "ed", text: "written before attach and typed through attach" })).outcome).toBe("matched");
  expect((await c.call("session.wait", { session: "outer", text: "and typed through attach" })).outcome).toBe("matched");

  await c.call("session.input", { session: "outer", keys: ["C-\\"] });
  const back = await c.call("session.wait", { session: "outer", text: "[detached from ed]" });
  expect(back.screen.alternate).toBe(false);
  expect(back.screen.lines).toContain("before-attach");
  expect(back.screen.modes.application_cursor).toBe(false);
  expect(back.screen.cursor.visible).toBe(true);
  await c.call("session.wait", { session: "outer", text: "outer$ ", timeout_ms: 5000 });
  expect((await c.call("session.info", { session: "ed" })).state).toBe("running");

  await typeLine(c, "outer", `${ATTACH} ed`);
  expect((await c.call("session.wait", { session: "outer", text: "typed through attach" })).outcome).toBe("matched");
  await c.call("session.input", { session: "outer", keys: ["Escape"] });
  await c.call("session.input", { session: "outer", text: ":wq" });
  await c.call("session.input", { session: "outer", keys: ["Enter"] });
  const ended = await c.call("session.wait", { session: "outer", text: "[ed exited (code 0)]" });
  expect(ended.screen.alternate).toBe(false);
});

test("two attached terminals of different sizes: the session takes the smallest, and grows back when it leaves", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  await outerShell(c, "sh", 40, 120);
  await outerShell(c, "big", 30, 100);
  await outerShell(c, "small", 20, 60);

  await attachIn(c, "big", "sh");
  expect((await c.call("session.info", { session: "sh" })).size).toEqual({ rows: 30, cols: 100 });

  await attachIn(c, "small", "sh");
  expect((await c.call("session.info", { session: "sh" })).size).toEqual({ rows: 20, cols: 60 });

  // Both see the same output.
  await c.call("session.input", { session: "small", text: "stty size" });
  await c.call("session.input", { session: "small", keys: ["Enter"] });
  await c.call("session.wait", { session: "big", regex: "^20 60$" });
  await c.call("session.wait", { session: "small", regex: "^20 60$" });

  // The detached client's connection closes just after it prints its message.
  await c.call("session.input", { session: "small", keys: ["C-\\"] });
  await c.call("session.wait", { session: "small", text: "[detached from sh]" });
  await untilSize(c, "sh", { rows: 30, cols: 100 });

  // A window resize of the attached terminal reaches the session: attach hears SIGWINCH and
  // passes it on.
  await c.call("session.resize", { session: "big", rows: 25, cols: 90 });
  await untilSize(c, "sh", { rows: 25, cols: 90 });
  await c.call("session.input", { session: "sh", text: "stty size" });
  await c.call("session.input", { session: "sh", keys: ["Enter"] });
  expect((await c.call("session.wait", { session: "big", regex: "^25 90$" })).outcome).toBe("matched");
});

test("a read-only attached terminal watches but its keys do not reach the session", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  await c.call("session.create", { name: "cat", command: ["cat"] });
  await outerShell(c, "watch", 24, 80);
  await typeLine(c, "watch", `${ATTACH} --read-only cat`);
  await c.call("session.input", { session: "cat", text: "from the owner\r" });
  await c.call("session.wait", { session: "watch", text: "from the owner" });

  await c.call("session.input", { session: "watch", text: "from the watcher\r" });
  await c.call("session.input", { session: "cat", text: "second line\r" });
  const w = await c.call("session.wait", { session: "watch", text: "second line" });
  expect(w.screen.lines.join("\n")).not.toContain("from the watcher");
  expect((await c.call("session.screen", { session: "cat" })).lines.join("\n")).not.toContain("from the watcher");
  // The protocol enforces it too: this connection's input is refused once attached read-only.
  const raw = await d.client();
  await raw.call("session.subscribe", { session: "cat", events: ["title"], read_only: true });
  await expect(raw.call("session.input", { session: "cat", text: "x" })).rejects.toMatchObject({ name: "UNAUTHORIZED" });
});

test("attach --take-over holds the session: another client's input is refused until it detaches", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  await outerShell(c, "sh", 24, 80);
  await outerShell(c, "outer", 24, 80);
  await attachIn(c, "outer", "sh --take-over");
  const held = await c.call("session.info", { session: "sh" });
  expect(held.held_by).toStartWith("termd attach");
  expect((await d.cli(["info", "sh"])).stdout).toContain(`held by: ${held.held_by} since ${held.held_since}`);
  const err = await c
    .call("session.input", { session: "sh", text: "echo agent" })
    .catch((e: unknown) => e as { name: string; message: string });
  expect(err).toMatchObject({ name: "SESSION_HELD" });
  // The person at the attached terminal types.
  await typeLine(c, "outer", "echo person-$((3*3))");
  expect((await c.call("session.wait", { session: "sh", regex: "^person-9$" })).outcome).toBe("matched");

  await c.call("session.input", { session: "outer", keys: ["C-\\"] });
  await c.call("session.wait", { session: "outer", text: "[detached from sh]" });
  await untilHeldBy(c, "sh", null);
  await c.call("session.input", { session: "sh", text: "echo agent-again\n" });
  expect((await c.call("session.wait", { session: "sh", regex: "^agent-again$" })).outcome).toBe("matched");
});

/** Waits until session.info's held_by is `by` (the close of attach's connection reaches the daemon on its own time). */
async function untilHeldBy(c: Client, session: string, by: string | null): Promise<void> {
  const { promise, resolve } = Promise.withResolvers<void>();
  const sub = await c.subscribe({ session, events: ["hold"] }, (e) => e.data.held_by === by && resolve());
  if ((await c.call("session.info", { session })).held_by !== by) await promise;
  await sub.unsubscribe();
}

test("after a rename, the attached terminal's keys and resizes reach the session, and it stays attached across a daemon restart", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  await outerShell(c, "sh", 24, 80);
  await outerShell(c, "outer", 24, 80);
  await attachIn(c, "outer", "sh");

  await c.call("session.rename", { session: "sh", name: "sh2" });
  await typeLine(c, "outer", "echo typed-$((6*7))");
  expect((await c.call("session.wait", { session: "sh2", regex: "^typed-42$" })).outcome).toBe("matched");
  await c.call("session.resize", { session: "outer", rows: 20, cols: 70 });
  await untilSize(c, "sh2", { rows: 20, cols: 70 });

  expect((await d.cli(["daemon", "restart"])).code).toBe(0);
  const c2 = await d.client();
  await typeLine(c2, "outer", "echo after-$((2*3))");
  expect((await c2.call("session.wait", { session: "sh2", regex: "^after-6$" })).outcome).toBe("matched");
  expect((await c2.call("session.wait", { session: "outer", regex: "^after-6$" })).screen.lines.join("\n")).not.toContain("[the daemon");
}, 60_000);

test("keys the session refuses are said on the attached terminal, not dropped in silence", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  await outerShell(c, "sh", 24, 80);
  await outerShell(c, "outer", 24, 80);
  await attachIn(c, "outer", "sh");
  const agent = await d.client();
  await agent.call("session.subscribe", { session: "sh", events: ["hold"], take_over: true, holder: "an agent" });
  await c.call("session.input", { session: "outer", text: "x" });
  // On the bottom row, as tmux's status line would say it.
  const said = await c.call("session.wait", { session: "outer", text: "[keys refused: session sh is held by an agent" });
  expect(said.screen.lines.at(-1)).toStartWith("[keys refused: session sh is held by an agent since");
});

test("after a daemon restart the session keeps the attached terminals' current sizes, the smallest winning, and grows back when the smallest leaves", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  await outerShell(c, "sh", 40, 120);
  await outerShell(c, "big", 30, 100);
  await outerShell(c, "small", 24, 80);
  await attachIn(c, "big", "sh");
  await attachIn(c, "small", "sh");
  // Both windows change size after attaching: those sizes, not the ones at attach, are theirs now.
  await c.call("session.resize", { session: "big", rows: 28, cols: 95 });
  await c.call("session.resize", { session: "small", rows: 20, cols: 70 });
  await untilSize(c, "sh", { rows: 20, cols: 70 });

  expect((await d.cli(["daemon", "restart"])).code).toBe(0);
  const c2 = await d.client();
  // Output reaching both terminals: each has subscribed again, its size with it.
  await typeLine(c2, "sh", "echo back-$((5*5))");
  await c2.call("session.wait", { session: "big", regex: "^back-25$" });
  await c2.call("session.wait", { session: "small", regex: "^back-25$" });
  expect((await c2.call("session.info", { session: "sh" })).size).toEqual({ rows: 20, cols: 70 });
  await typeLine(c2, "sh", "stty size");
  expect((await c2.call("session.wait", { session: "sh", regex: "^20 70$" })).outcome).toBe("matched");

  await c2.call("session.input", { session: "small", keys: ["C-\\"] });
  await c2.call("session.wait", { session: "small", text: "[detached from sh]" });
  await untilSize(c2, "sh", { rows: 28, cols: 95 });
}, 60_000);

test("termd restart SESSION keeps the attached terminal: it shows the program ended and the new run, and keys reach the new program", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  await outerShell(c, "rs", 24, 80);
  await outerShell(c, "outer", 24, 80);
  await attachIn(c, "outer", "rs");
  await c.call("session.resize", { session: "outer", rows: 20, cols: 70 });
  await untilSize(c, "rs", { rows: 20, cols: 70 });

  expect((await d.cli(["restart", "rs"])).code).toBe(0);
  expect((await c.call("session.wait", { session: "outer", text: "[rs exited (signal SIGHUP): restarting]" })).outcome).toBe("matched");
  const restarted = await c.call("session.wait", { session: "outer", text: "restarted at" });
  expect(restarted.screen.alternate).toBe(true);
  await typeLine(c, "outer", "echo new-run-$((4*4)); stty size");
  expect((await c.call("session.wait", { session: "rs", regex: "^new-run-16$" })).outcome).toBe("matched");
  expect((await c.call("session.wait", { session: "rs", regex: "^20 70$" })).outcome).toBe("matched");
  // A program that ends by itself still ends the attach, as tmux's pane closing does.
  await typeLine(c, "outer", "exit 7");
  expect((await c.call("session.wait", { session: "outer", text: "[rs exited (code 7)]" })).screen.alternate).toBe(false);
});

test("termd attach to the session it runs in is refused: it would feed its own output back forever", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  await outerShell(c, "n1", 24, 80);
  await typeLine(c, "n1", `${ATTACH} n1; echo "code=$?"`);
  const refused = await c.call("session.wait", { session: "n1", regex: "^code=\\d+$" });
  expect(refused.screen.lines.join("\n")).toContain("termd attach: n1 is the session this terminal is in");
  expect(refused.screen.lines).toContain("code=2");
});

// Regression: the check compared TERMD_SESSION, the name when the program started, so after a
// rename it let a terminal attach to itself and refused another session given the old name.
test("after a rename, attach is still refused inside the session and lets it attach to another that took its old name", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  await outerShell(c, "in", 24, 80);
  await outerShell(c, "other", 24, 80);
  await c.call("session.rename", { session: "in", name: "renamed" });
  await c.call("session.rename", { session: "other", name: "in" });
  await typeLine(c, "renamed", `clear; ${ATTACH} renamed; echo "code=$?"`);
  const refused = await c.call("session.wait", { session: "renamed", regex: "^code=\\d+$" });
  expect(refused.screen.lines.join("\n")).toContain("termd attach: renamed is the session this terminal is in");
  expect(refused.screen.lines).toContain("code=2");
  await typeLine(c, "renamed", `clear; ${ATTACH} in`);
  expect((await c.call("session.wait", { session: "renamed", text: "other$ " })).outcome).toBe("matched");
  await c.call("session.input", { session: "renamed", keys: ["C-\\"] });
  expect((await c.call("session.wait", { session: "renamed", text: "[detached from in]" })).outcome).toBe("matched");
});

test("--take-over names the holder by the user's login name where $USER and $LOGNAME are unset", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  await outerShell(c, "sh", 24, 80);
  await outerShell(c, "outer", 24, 80);
  await attachIn(c, "outer", "sh --take-over", "env -u USER -u LOGNAME ");
  const login = Bun.spawnSync(["id", "-un"]).stdout.toString().trim();
  expect((await c.call("session.info", { session: "sh" })).held_by).toBe(`termd attach (${login}@${hostname()})`);
});
