// termd attach through a real outer terminal: the outer terminal is itself a termd session (a
// real PTY running bash), in which `termd attach` runs as a person would run it.
import { expect, test } from "bun:test";
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
  await c.call("session.create", { name: "sh", command: ["bash", "--norc", "--noprofile"], env: { PS1: "sh$ " }, rows: 40, cols: 120 });
  await c.call("session.wait", { session: "sh", text: "sh$ " });
  await outerShell(c, "big", 30, 100);
  await outerShell(c, "small", 20, 60);

  await typeLine(c, "big", `${ATTACH} sh`);
  await c.call("session.wait", { session: "big", text: "sh$ " });
  expect((await c.call("session.info", { session: "sh" })).size).toEqual({ rows: 30, cols: 100 });

  await typeLine(c, "small", `${ATTACH} sh`);
  await c.call("session.wait", { session: "small", text: "sh$ " });
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
  await c.call("session.create", { name: "sh", command: ["bash", "--norc", "--noprofile"], env: { PS1: "sh$ " } });
  await c.call("session.wait", { session: "sh", text: "sh$ " });
  await outerShell(c, "outer", 24, 80);
  await typeLine(c, "outer", `${ATTACH} sh --take-over`);
  await c.call("session.wait", { session: "outer", text: "sh$ " });
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
