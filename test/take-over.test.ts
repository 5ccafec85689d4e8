// Taking a session over (session.subscribe's take_over): while one connection holds a session,
// every other connection's input, in-shell commands, resizes and take-overs are refused with
// SESSION_HELD; a fresh exec.run, reading and watching still work. The hold ends on give back,
// on detach, and when the holder's connection closes.
import { expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { RpcError, type Client } from "../src/client/index.ts";
import type { EventMessage } from "../src/protocol/schemas.ts";
import { TestDaemon } from "./harness.ts";
import { run, shell } from "./shell-session.ts";

const PERSON = "alice at the browser page";

async function refusal(p: Promise<unknown>): Promise<RpcError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(RpcError);
  return err as RpcError;
}

/** Resolves with the first hold event on `c`'s subscription for which `pred` holds. */
function holdEvent(c: Client, pred: (e: EventMessage) => boolean): Promise<EventMessage> {
  const { promise, resolve } = Promise.withResolvers<EventMessage>();
  const off = c.onEvent((e) => {
    if (e.type !== "hold" || !pred(e)) return;
    off();
    resolve(e);
  });
  return promise;
}

/** `by` submits `line` at the shell "sh", and `watcher` sees its output `shown` as a row of its own. */
async function typesIn(by: Client, line: string, shown: string, watcher = by): Promise<void> {
  await by.call("session.input", { session: "sh", text: line, submit: true });
  expect((await watcher.call("session.wait", { session: "sh", regex: `^${shown}$` })).outcome).toBe("matched");
}

test("a holder types; every other connection's input, in-shell exec.run, resize and take-over are refused; fresh exec.run and give back work", async () => {
  await using d = await TestDaemon.start();
  const agent = await d.client();
  await shell(agent, "sh");
  const watcher = await d.client();
  await watcher.subscribe({ session: "sh", events: ["hold"] }, () => {});
  const taken = holdEvent(watcher, (e) => e.data.held_by === PERSON);

  const person = await d.client();
  await person.call("session.subscribe", { session: "sh", events: ["state"], take_over: true, holder: PERSON });
  const info = await agent.call("session.info", { session: "sh" });
  expect(info.held_by).toBe(PERSON);
  expect(Date.parse(info.held_since!)).toBeGreaterThan(Date.now() - 60_000);
  expect((await taken).data).toEqual({ held_by: PERSON, held_since: info.held_since });

  // The holder types, and runs commands in the shell.
  await typesIn(person, "echo typed-by-$((1+1))", "typed-by-2", agent);
  expect((await person.call("exec.run", { session: "sh", command: "echo holder-ran" })).output).toBe("holder-ran\n");

  // Everything another connection would type is refused, each with the same named error.
  const attempts: [string, Promise<unknown>][] = [
    ["text", agent.call("session.input", { session: "sh", text: "echo agent" })],
    ["keys", agent.call("session.input", { session: "sh", keys: ["Enter"] })],
    ["paste", agent.call("session.input", { session: "sh", paste: "pasted" })],
    ["submit", agent.call("session.input", { session: "sh", text: "echo agent", submit: true })],
    ["base64", agent.call("session.input", { session: "sh", base64: Buffer.from("x").toString("base64") })],
    ["mouse", agent.call("session.input", { session: "sh", mouse: { action: "click", row: 0, col: 0 } })],
    ["exec.run", agent.call("exec.run", { session: "sh", command: "echo agent-ran" })],
    ["resize", agent.call("session.resize", { session: "sh", rows: 10, cols: 40 })],
    ["take-over", agent.call("session.subscribe", { session: "sh", events: ["state"], take_over: true })],
  ];
  for (const [what, p] of attempts) {
    const err = await refusal(p);
    expect([what, err.name]).toEqual([what, "SESSION_HELD"]);
    expect(err.message).toContain(`held by ${PERSON} since ${info.held_since}`);
    expect(err.message).toContain("give it back");
    expect(err.details).toMatchObject({ session: "sh", held_by: PERSON, held_since: info.held_since });
  }
  // None of it reached the shell, and the session kept its size.
  expect((await agent.call("session.screen", { session: "sh" })).lines.join("\n")).not.toContain("agent");
  expect((await agent.call("session.info", { session: "sh" })).size).toEqual({ rows: 24, cols: 80 });
  // A fresh run never touches the terminal: it goes on.
  expect((await agent.call("exec.run", { session: "sh", command: "echo fresh-ran", fresh: true })).output).toBe("fresh-ran\n");

  // Given back while still attached: the agent types again, and watchers are told.
  const given = holdEvent(watcher, (e) => e.data.held_by === null);
  await person.call("session.subscribe", { session: "sh", events: ["state"], take_over: false });
  expect((await given).data).toEqual({ held_by: null, held_since: null });
  expect((await agent.call("session.info", { session: "sh" })).held_by).toBeNull();
  await typesIn(agent, "echo agent-$((2+2))", "agent-4");
});

test("the hold ends when the holder's connection closes, and when it detaches", async () => {
  await using d = await TestDaemon.start();
  const agent = await d.client();
  await shell(agent, "sh");
  await agent.subscribe({ session: "sh", events: ["hold"] }, () => {});

  const person = await d.client();
  await person.call("session.subscribe", { session: "sh", events: ["state"], take_over: true });
  // No name given: "a connection".
  expect((await agent.call("session.info", { session: "sh" })).held_by).toBe("a connection");
  expect((await refusal(agent.call("session.input", { session: "sh", text: "x" }))).name).toBe("SESSION_HELD");
  const released = holdEvent(agent, (e) => e.data.held_by === null);
  person.close();
  await released;
  await typesIn(agent, "echo after-close", "after-close");

  // Detaching (unsubscribing from the session) gives it back too.
  const other = await d.client();
  await other.call("session.subscribe", { session: "sh", events: ["state"], take_over: true, holder: "bob" });
  expect((await refusal(agent.call("session.input", { session: "sh", text: "x" }))).message).toContain("held by bob");
  await other.call("session.unsubscribe", { session: "sh" });
  expect((await agent.call("session.info", { session: "sh" })).held_by).toBeNull();
  await typesIn(agent, "echo after-detach", "after-detach");
});

test("while held the session keeps its holder's size: a smaller watcher attaching does not shrink it", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  await shell(c, "sh");
  const person = await d.client();
  await person.call("session.subscribe", { session: "sh", events: ["state"], take_over: true, size: { rows: 30, cols: 100 } });
  expect((await c.call("session.info", { session: "sh" })).size).toEqual({ rows: 30, cols: 100 });
  const small = await d.client();
  await small.call("session.subscribe", { session: "sh", events: ["state"], size: { rows: 10, cols: 40 } });
  expect((await c.call("session.info", { session: "sh" })).size).toEqual({ rows: 30, cols: 100 });
  // Given back: the smallest attached terminal decides again.
  await person.call("session.subscribe", { session: "sh", events: ["state"], take_over: false });
  expect((await c.call("session.info", { session: "sh" })).size).toEqual({ rows: 10, cols: 40 });
});

test("take_over needs one session and is not read-only", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  await shell(c, "sh");
  expect((await refusal(c.call("session.subscribe", { take_over: true }))).name).toBe("INVALID_PARAMS");
  expect((await refusal(c.call("session.subscribe", { session: "sh", take_over: true, read_only: true }))).name).toBe("INVALID_PARAMS");
  expect((await c.call("session.info", { session: "sh" })).held_by).toBeNull();
});

test("a safe submit that waits for the shell's next prompt types nothing if the session was taken over meanwhile, or its caller went away", async () => {
  await using d = await TestDaemon.start();
  const agent = await d.client();
  // While the file HOLD exists, the shell's PROMPT_COMMAND keeps it between a command's end and its next prompt.
  const hold = join(d.dir, "hold");
  await shell(agent, "sh", { env: { PS1: "$ ", HOLD: hold, PROMPT_COMMAND: 'while [ -e "$HOLD" ]; do sleep 0.01; done' } });
  expect((await agent.call("session.wait", { session: "sh", prompt: true, since: 0 })).outcome).toBe("prompt");
  const untilPromptHeld = async () => {
    writeFileSync(hold, "");
    await run(agent, "sh", "true");
    expect((await agent.call("session.wait", { session: "sh", command_done: true })).outcome).toBe("command_done");
  };

  // Taken over while the submit waits for the prompt: refused as it would have been before the wait.
  await untilPromptHeld();
  let from = (await agent.call("system.stats")).requests;
  const submitted = agent.call("session.input", { session: "sh", text: "echo agent-typed", submit: true });
  await d.requestsPast(from, 1);
  const person = await d.client();
  await person.call("session.subscribe", { session: "sh", events: ["state"], take_over: true, holder: PERSON });
  rmSync(hold);
  expect((await refusal(submitted)).name).toBe("SESSION_HELD");
  await person.call("session.unsubscribe", { session: "sh", events: ["*"] });
  expect((await agent.call("session.info", { session: "sh" })).held_by).toBeNull();

  // The caller goes away while its submit waits (it held the session: its hold ends with it, which says the daemon saw it go).
  await untilPromptHeld();
  const leaving = await d.client();
  await leaving.call("session.subscribe", { session: "sh", events: ["state"], take_over: true, holder: "leaving" });
  from = (await agent.call("system.stats")).requests;
  void leaving.call("session.input", { session: "sh", text: "echo for-nobody", submit: true }).catch(() => {});
  await d.requestsPast(from, 1);
  const given = holdEvent(agent, (e) => e.data.held_by === null);
  await agent.subscribe({ session: "sh", events: ["hold"] }, () => {});
  leaving.close();
  await given;
  rmSync(hold);
  expect((await agent.call("session.wait", { session: "sh", prompt: true })).outcome).toBe("prompt");
  await agent.call("session.input", { session: "sh", text: "echo after", submit: true });
  expect((await agent.call("session.wait", { session: "sh", command_done: true })).command?.command).toBe("echo after");
  const screen = (await agent.call("session.screen", { session: "sh" })).lines.join("\n");
  expect(screen).not.toContain("agent-typed");
  expect(screen).not.toContain("for-nobody");
});
