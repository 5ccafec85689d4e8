// termd wait, run as a user runs it, against a daemon of this file's: each outcome's line and exit code.
import { expect, test } from "bun:test";
import { sharedDaemon, TestDaemon } from "../../../test/harness.ts";
import { RpcError } from "../../protocol/errors.ts";
import type { WaitResult } from "../../protocol/schemas.ts";
import { waitUntil } from "./wait.ts";

const s = sharedDaemon();

test("wait --text prints where it matched; --gone a bare matched; --screen adds the screen", async () => {
  const program = "printf 'a\\n  here\\n'; read x; clear; exec sleep 100";
  await s.c.call("session.create", { name: "m", command: ["sh", "-c", program], cwd: s.dir, rows: 3, cols: 10 });
  expect(await s.d.cli(["wait", "m", "--text", "here"])).toEqual({ code: 0, stdout: "matched at 1,2: here\n", stderr: "" });
  expect((await s.d.run(["wait", "m", "--regex", "h.re", "--screen"])).stdout).toBe("matched at 1,2: here\na\n  here\n\n");
  const gone = s.d.run(["wait", "m", "--gone", "here"]);
  await s.c.call("session.input", { session: "m", text: "\r" });
  expect(await gone).toEqual({ code: 0, stdout: "matched\n", stderr: "" });
});

test("wait --exit: 0 with the exit code or signal; another condition the session ends before: 1", async () => {
  await s.c.call("session.create", { name: "e", command: ["sh", "-c", "echo ready; read x; exit 7"], cwd: s.dir });
  await s.c.call("session.wait", { session: "e", text: "ready" });
  const never = s.d.run(["wait", "e", "--text", "never"]);
  await s.c.call("session.input", { session: "e", text: "\r" });
  expect(await never).toEqual({ code: 1, stdout: "exited (code 7)\n", stderr: "" });
  expect(await s.d.run(["wait", "e", "--exit"])).toEqual({ code: 0, stdout: "exited (code 7)\n", stderr: "" });
  await s.c.call("session.create", { name: "k", command: ["sleep", "100"], cwd: s.dir });
  await s.c.call("session.signal", { session: "k", signal: "KILL" });
  expect((await s.d.run(["wait", "k", "--exit"])).stdout).toBe("exited (signal SIGKILL)\n");
});

test("wait --timeout: outcome timeout, exit 3; --json prints the whole result", async () => {
  await s.c.call("session.create", { name: "q", command: ["sleep", "100"], cwd: s.dir });
  expect(await s.d.run(["wait", "q", "--text", "never", "--timeout", "1"])).toEqual({ code: 3, stdout: "timeout\n", stderr: "" });
  const r = JSON.parse((await s.d.run(["wait", "q", "--text", "never", "--timeout", "1", "--json"])).stdout);
  expect(r).toMatchObject({ outcome: "timeout", screen: { lines: expect.any(Array) } });
});

test("wait --timeout 0 waits for good, as exec.run's and run_command's 0 means, instead of timing out at once", async () => {
  await s.c.call("session.create", { name: "forever", command: ["cat"], cwd: s.dir });
  const from = (await s.c.call("system.stats")).requests;
  const waited = s.d.run(["wait", "forever", "--text", "at last", "--timeout", "0"]);
  await s.d.requestsPast(from, 2);
  await s.c.call("session.input", { session: "forever", text: "at last" });
  expect(await waited).toEqual({ code: 0, stdout: "matched at 0,0: at last\n", stderr: "" });
});

test("waits in flight ride through termd daemon restart: sent again to the new daemon, they see what happens after it", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  await c.call("session.create", { name: "build", command: ["sh", "-c", "read x; echo got-$x; exit 4"], cwd: d.dir });
  const from = (await c.call("system.stats")).requests;
  const text = d.cli(["wait", "build", "--text", "got-ZZZ", "--timeout", "60000"]);
  const exit = d.cli(["wait", "build", "--exit", "--timeout", "60000"]);
  await d.requestsPast(from, 4);
  expect(await d.cli(["daemon", "restart"])).toMatchObject({ code: 0, stderr: "" });
  await (await d.client()).call("session.input", { session: "build", text: "ZZZ\r" });
  expect(await text).toEqual({ code: 0, stdout: "matched at 1,0: got-ZZZ\n", stderr: "" });
  expect(await exit).toEqual({ code: 0, stdout: "exited (code 4)\n", stderr: "" });
});

/**
 * A daemon replaced under the first session.wait (it fails DAEMON_REPLACED, as a cut call does),
 * whose next image answers its ping only once `back()` holds; every later wait times out.
 */
function replacedDaemon(back: () => boolean) {
  const sent: { method: string; timeout_ms?: number }[] = [];
  const call = async (method: string, params?: { timeout_ms?: number }): Promise<unknown> => {
    sent.push({ method, timeout_ms: params?.timeout_ms });
    if (method === "system.ping") {
      while (!back()) await Bun.sleep(1);
      return {};
    }
    if (sent.length === 1) throw new RpcError("DAEMON_REPLACED", "the daemon is being replaced");
    return { outcome: "timeout" } as WaitResult;
  };
  return { client: { call } as Parameters<typeof waitUntil>[0], sent };
}

test("a wait the restart cut at its deadline answers the timeout (exit 3), not the cut (exit 1)", async () => {
  const { client, sent } = replacedDaemon(() => true);
  expect((await waitUntil(client, { session: "s", text: "x" }, Date.now() - 1)).outcome).toBe("timeout");
  expect(sent).toEqual([
    { method: "session.wait", timeout_ms: 0 },
    { method: "system.ping", timeout_ms: undefined },
    { method: "session.wait", timeout_ms: 0 },
  ]);
});

test("a wait the restart cut is sent again with the time left once the new daemon answers: none, when it came back past the deadline", async () => {
  const deadline = Date.now() + 20;
  const { client, sent } = replacedDaemon(() => Date.now() > deadline);
  expect((await waitUntil(client, { session: "s", exit: true }, deadline)).outcome).toBe("timeout");
  expect(sent.map((c) => c.method)).toEqual(["session.wait", "system.ping", "session.wait"]);
  expect(sent[2]!.timeout_ms).toBe(0);
});

test("wait --changed-from, --activity and --settle print their outcomes", async () => {
  await s.c.call("session.create", { name: "c", command: ["cat"], cwd: s.dir });
  const { hash } = await s.c.call("session.screen", { session: "c" });
  const changed = s.d.run(["wait", "c", "--changed-from", hash]);
  await s.c.call("session.input", { session: "c", text: "x" });
  expect(await changed).toEqual({ code: 0, stdout: "changed\n", stderr: "" });
  expect(await s.d.run(["wait", "c", "--settle", "1"])).toEqual({ code: 0, stdout: "settled\n", stderr: "" });
  // A program that writes on its own: whenever the wait begins, more output comes.
  await s.c.call("session.create", { name: "ticks", command: ["sh", "-c", "while :; do printf .; sleep 0.05; done"], cwd: s.dir });
  expect((await s.d.run(["wait", "ticks", "--activity"])).stdout).toBe("activity\n");
});

test("wait --command-done prints the command, its status and what it printed", async () => {
  await s.c.call("session.create", { name: "sh", command: ["bash", "--norc", "--noprofile"], cwd: s.dir, env: { PS1: "$ " } });
  expect(await s.d.run(["wait", "sh", "--prompt"])).toEqual({ code: 0, stdout: "prompt\n", stderr: "" });
  await s.c.call("session.input", { session: "sh", text: "echo hi; false\r" });
  expect(await s.d.run(["wait", "sh", "--command-done"])).toEqual({
    code: 0,
    stdout: "command_done (code 1): echo hi; false\nhi\n",
    stderr: "",
  });
});

test("wait: bad values are usage errors in the flags' own words (2), an unknown session not found (4)", async () => {
  expect((await s.d.run(["wait"])).code).toBe(2);
  expect(await s.d.run(["wait", "c", "--settle", "0"])).toMatchObject({
    code: 2,
    stderr: "termd wait: --settle must be at least 1 (got 0)\n",
  });
  // The daemon's words name its fields; the command line's name the flags.
  expect(await s.d.run(["wait", "c", "--fresh", "later", "--text", "x"])).toMatchObject({
    code: 2,
    stderr: 'termd wait: --fresh is not valid here (got "later")\n',
  });
  expect(await s.d.run(["wait", "c"])).toMatchObject({
    code: 2,
    stderr:
      "termd wait: give at least one of --text, --regex, --gone, --exit, --activity, --settle, --command-done, --prompt, --changed-from\n",
  });
  expect((await s.d.run(["wait", "nope", "--exit"])).code).toBe(4);
});
