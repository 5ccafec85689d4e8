// `termd daemon restart` hands the running sessions over to the next image of the daemon in place
// (src/daemon/handover.ts): the programs never notice (same pids, no signal, no byte lost or
// doubled), and a binary that cannot take over leaves the daemon serving, untouched.
import { expect, test } from "bun:test";
import { chmodSync, existsSync, readFileSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "../src/client/index.ts";
import { SOURCE_BIN, TestDaemon } from "./harness.ts";
import { alive } from "../src/platform/alive.ts";
import { ask, nativeSession } from "./dialects/interminai-cli.ts";
import { startHttpDaemon } from "./http/http-daemon.ts";

/** The counter's values in its output, in order. */
const counted = (text: string) =>
  text
    .split(/\r?\n/)
    .filter((l) => /^\d+$/.test(l))
    .map(Number);

/** A session named `name` running a bash script. */
const bash = (c: Client, name: string, script: string) => c.call("session.create", { name, command: ["bash", "--norc", "-c", script] });

async function output(c: Client, session: string): Promise<string> {
  let text = "";
  for (let from = 0; ; ) {
    const page = await c.call("session.output", { session, from });
    text += Buffer.from(page.base64, "base64").toString();
    if (page.eof || page.to === from) return text;
    from = page.to;
  }
}

test("restart keeps bash, vim and a counter running: same pids, no signal, the unsaved edit saved after, every value once in order in the log and to a subscriber that rode through, an exit after it reported", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  const traps = join(d.dir, "traps");
  writeFileSync(traps, "");
  const edited = join(d.dir, "edited.txt");
  const stop = join(d.dir, "stop");
  await bash(c, "trap", `for s in HUP TERM CONT; do trap "echo $s >> ${traps}" $s; done; echo armed; while :; do sleep 0.05; done`);
  await c.call("session.create", { name: "vim", command: ["vim", "-u", "NONE", "-N", "-n", edited] });
  await bash(c, "counter", `i=0; until [ -e ${stop} ]; do i=$((i+1)); echo $i; sleep 0.01; done; exit 3`);
  await c.call("session.wait", { session: "trap", text: "armed" });
  await c.call("session.wait", { session: "vim", text: "edited.txt" });
  await c.call("session.input", { session: "vim", text: "ihanded over" });
  await c.call("session.input", { session: "vim", keys: ["Escape"] });
  expect((await c.call("session.wait", { session: "vim", text: "handed over" })).outcome).toBe("matched");
  await c.call("session.wait", { session: "counter", regex: "^5$" });
  // A subscriber through the client library: its connection is closed by the exec, and it
  // resumes by itself, from the last offset it saw.
  const seen: { from: number; to: number; text: string }[] = [];
  let seenTo = 0;
  const caughtUp = new Set<() => void>();
  await c.subscribe({ session: "counter", events: ["output"], replay: 0 }, (e) => {
    const { from, to } = e.data as { from: number; to: number };
    seen.push({ from, to, text: Buffer.from(String(e.data.base64), "base64").toString() });
    seenTo = to;
    for (const check of caughtUp) check();
  });
  const subscriberAt = (end: number) =>
    new Promise<void>((resolve) => {
      const check = () => seenTo >= end && resolve();
      caughtUp.add(check);
      check();
    });
  const pids = async (cl: Client) => (await cl.call("session.list")).sessions.map((s) => [s.name, s.pid, s.state]).sort();
  const before = await pids(c);
  const daemonBefore = await c.call("system.ping");

  // A call in flight when the daemon goes is told why (its ping answered: the wait was read first).
  const other = await d.client();
  const inFlight = other.call("session.wait", { session: "trap", text: "never printed", timeout_ms: 60_000 }).catch((e: Error) => e);
  await other.call("system.ping");

  const restart = await d.cli(["daemon", "restart"]);
  expect(restart.stderr).toBe("");
  expect(await inFlight).toMatchObject({ name: "DAEMON_REPLACED" });
  expect(restart.stdout).toContain("(pid " + d.proc.pid + ", 3 running sessions kept)");
  expect(restart.code).toBe(0);

  const c2 = await d.client();
  const ping = await c2.call("system.ping");
  expect(ping.pid).toBe(daemonBefore.pid);
  expect(ping.started_at).not.toBe(daemonBefore.started_at);
  expect(await pids(c2)).toEqual(before);
  // The counter goes on past where it was, and its screen with it.
  const last = Math.max(...counted(await output(c2, "counter")));
  expect((await c2.call("session.wait", { session: "counter", regex: `^${last + 20}$`, timeout_ms: 30_000 })).outcome).toBe("matched");
  writeFileSync(stop, "");
  const exit = await c2.call("session.wait", { session: "counter", exit: true, timeout_ms: 30_000 });
  expect(exit.exit_code).toBe(3);
  expect((await c2.call("session.info", { session: "counter" })).state).toBe("failed");
  const values = counted(await output(c2, "counter"));
  expect(values.length).toBeGreaterThanOrEqual(last + 20);
  expect(values).toEqual(values.map((_, i) => i + 1));
  // The subscriber that stayed connected holds the same bytes: each once, in order, no gap.
  await subscriberAt((await c2.call("session.info", { session: "counter" })).bytes_out);
  expect(seen.every((e, i) => e.from === (i === 0 ? 0 : seen[i - 1]!.to))).toBe(true);
  expect(counted(seen.map((e) => e.text).join(""))).toEqual(values);

  // vim still holds its unsaved buffer: written now.
  await c2.call("session.input", { session: "vim", text: ":wq\r" });
  expect((await c2.call("session.wait", { session: "vim", exit: true, timeout_ms: 30_000 })).exit_code).toBe(0);
  expect(readFileSync(edited, "utf8")).toBe("handed over\n");

  // No signal reached bash: its traps wrote nothing, and it runs on.
  expect(readFileSync(traps, "utf8")).toBe("");
  expect((await c2.call("session.info", { session: "trap" })).state).toBe("running");
}, 60_000);

test("input the program had not read yet when the daemon was replaced reaches it after, whole and once: the pty worker's queue crosses the exec", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  const go = join(d.dir, "go");
  // Reads nothing until told: most of the input waits in the pty worker's queue (the PTY holds
  // some 64 KiB), then counts what it got up to the E.
  await bash(
    c,
    "late",
    `stty raw -echo; echo ready; until [ -e ${go} ]; do sleep 0.05; done; IFS= read -r -d E line; echo "got \${#line}"`,
  );
  await c.call("session.wait", { session: "late", text: "ready" });
  const size = 300_000;
  expect((await c.call("session.input", { session: "late", text: "x".repeat(size) })).bytes).toBe(size);
  const restart = await d.cli(["daemon", "restart"]);
  expect(restart.code).toBe(0);
  const c2 = await d.client();
  writeFileSync(go, "");
  await c2.call("session.input", { session: "late", text: "E" });
  expect((await c2.call("session.wait", { session: "late", regex: "got \\d+", timeout_ms: 30_000 })).outcome).toBe("matched");
  expect(await output(c2, "late")).toContain(`got ${size}`);
}, 60_000);

test("a binary that cannot take over (exits at start, not termd, missing, gone at the exec, or finds state it cannot go on from) leaves the daemon serving, its sessions untouched, and the command says why", async () => {
  await using d = await TestDaemon.start();
  let c = await d.client();
  await c.call("session.create", { name: "s", command: ["bash", "--norc"] });
  const { pid } = await c.call("session.info", { session: "s" });
  const before = await c.call("system.ping");
  const exits1 = join(d.dir, "exits1");
  writeFileSync(exits1, "#!/bin/sh\necho starting >&2\nexit 1\n");
  chmodSync(exits1, 0o755);
  const cases: [string, string][] = [
    [exits1, `${exits1} is not a termd that can take over (its check exited with code 1: starting)`],
    ["/bin/echo", "/bin/echo is not a termd that can take over (its check exited with code 0: daemon"],
    [join(d.dir, "missing"), `cannot run ${join(d.dir, "missing")}`],
  ];
  for (const [binary, why] of cases) {
    const r = await d.cli(["daemon", "restart", "--binary", binary]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`termd daemon restart: the daemon was not replaced and serves on: ${why}`);
  }
  // One that passes its check and is gone when the exec comes: the exec fails, and the daemon,
  // its pty workers released, serves on.
  const vanishes = join(d.dir, "vanishes");
  const answer = { handover: 1, build: { version: "9.9.9", commit: "x", target: "t", bun: null }, problems: [] };
  writeFileSync(vanishes, `#!/bin/sh\nrm -f "$0"\necho '${JSON.stringify(answer)}'\n`);
  chmodSync(vanishes, 0o755);
  const r = await d.cli(["daemon", "restart", "--binary", vanishes]);
  expect([r.code, r.stderr]).toEqual([
    1,
    `termd daemon restart: the daemon (pid ${before.pid}) serves on as it was (its exec failed); its log says why\n`,
  ]);
  await d.logged(`termd: the daemon was not replaced: execve ${vanishes} failed`);
  // Its connections were closed with the reason: a new one.
  c = await d.client();
  const after = await c.call("system.ping");
  expect([after.pid, after.started_at]).toEqual([before.pid, before.started_at]);
  const info = await c.call("session.info", { session: "s" });
  expect([info.pid, info.state]).toEqual([pid, "running"]);
  await c.call("session.input", { session: "s", text: "echo still here\r" });
  expect((await c.call("session.wait", { session: "s", text: "still here" })).outcome).toBe("matched");

  // State the new build cannot go on from (a log cut shorter than the output; the shell may still
  // append its prompt to it): its dry run says so.
  truncateSync(join(d.stateDir, "logs", `${info.id}.log`), 0);
  const cut = await d.cli(["daemon", "restart"]);
  expect(cut.code).toBe(1);
  expect(cut.stderr).toMatch(
    new RegExp(`cannot take over: session ${info.id}'s log is shorter than its output \\(\\d+ < \\d+ bytes\\)\\n$`),
  );
  expect((await c.call("system.ping")).started_at).toBe(before.started_at);
  // A refused handover leaves no record behind.
  expect(existsSync(join(d.stateDir, "handover.json"))).toBe(false);
}, 60_000);

test("a handover record that cannot be written after the check leaves the daemon serving, its pty workers going on", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  await c.call("session.create", { name: "s", command: ["bash", "--norc"] });
  const before = await c.call("system.ping");
  // Passes its check, and leaves a folder where the final record is to be written.
  const blocks = join(d.dir, "blocks");
  const answer = { handover: 1, build: { version: "9.9.9", commit: "x", target: "t", bun: null }, problems: [] };
  writeFileSync(blocks, `#!/bin/sh\nfor a; do f="$a"; done\nrm -f "$f" && mkdir "$f"\necho '${JSON.stringify(answer)}'\n`);
  chmodSync(blocks, 0o755);
  const r = await d.cli(["daemon", "restart", "--binary", blocks]);
  expect(r.code).toBe(1);
  // Regression: the write threw past the release, and the held workers stayed stopped for good.
  await d.logged("termd: the daemon was not replaced: EISDIR");
  const c2 = await d.client();
  expect((await c2.call("system.ping")).started_at).toBe(before.started_at);
  await c2.call("session.input", { session: "s", text: "echo still served\r" });
  expect((await c2.call("session.wait", { session: "s", text: "still served" })).outcome).toBe("matched");
}, 60_000);

test("what a stop under way left waiting out its grace gets SIGKILL at the restart: the next daemon knows nothing of it", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  // The shell ends on the stop's hangup; its child, in a group of its own, shrugs off HUP and TERM.
  // It prints its pid itself once its trap is set: the shell's echo of $! could come before the trap.
  await bash(c, "s", 'set -m; (trap "" HUP TERM; echo child-$BASHPID-end; exec sleep 1000) & wait');
  const w = await c.call("session.wait", { session: "s", regex: "child-[0-9]+-end" });
  const child = Number(/child-([0-9]+)-end/.exec(w.match!.text)![1]);
  try {
    // Not awaited: its grace outlasts the test; the restart ends it.
    c.call("session.stop", { session: "s", grace_ms: 600_000 }).catch(() => {});
    expect((await c.call("session.wait", { session: "s", exit: true })).outcome).toBe("exited");
    expect(alive(child)).toBe(true);
    expect((await d.cli(["daemon", "restart"])).code).toBe(0);
    // Regression: the record carries running programs only, and the child ran on for good.
    while (alive(child)) await new Promise((r) => setImmediate(r));
  } finally {
    if (alive(child)) process.kill(child, "SIGKILL");
  }
}, 60_000);

test("termd attach under a PTY goes on after the restart with no key pressed, and typing through it still reaches the session", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  await c.call("session.create", { name: "inner", command: ["bash", "--norc", "--noprofile"], env: { PS1: "inner$ " } });
  await c.call("session.create", { name: "outer", command: ["bash", "--norc", "--noprofile"], env: { PS1: "outer$ " } });
  await c.call("session.wait", { session: "outer", text: "outer$ " });
  const attach = `${SOURCE_BIN.map((a) => `'${a}'`).join(" ")} attach inner`;
  await c.call("session.input", { session: "outer", text: `${attach}\r` });
  expect((await c.call("session.wait", { session: "outer", text: "inner$ ", timeout_ms: 30_000 })).outcome).toBe("matched");

  const restart = await d.cli(["daemon", "restart"]);
  expect(restart.code).toBe(0);
  const c2 = await d.client();
  // Output of the attached session after the restart reaches the attached terminal by itself.
  await c2.call("session.input", { session: "inner", text: "echo after-$((40+2))\r" });
  expect((await c2.call("session.wait", { session: "outer", regex: "^after-42$", timeout_ms: 30_000 })).outcome).toBe("matched");
  await c2.call("session.input", { session: "outer", text: "echo typed-$((6*7))\r" });
  expect((await c2.call("session.wait", { session: "inner", regex: "^typed-42$", timeout_ms: 30_000 })).outcome).toBe("matched");
  await c2.call("session.input", { session: "outer", keys: ["C-\\"] });
  expect((await c2.call("session.wait", { session: "outer", text: "[detached from inner]" })).outcome).toBe("matched");
  // A program taken over stops as any other: its end is read once its terminal hangs up.
  const stopped = await c2.call("session.stop", { session: "inner", grace_ms: 5000 });
  expect([stopped.state, stopped.signal]).toEqual(["stopped", "SIGHUP"]);
}, 60_000);

test("a client attached with a size subscribes again after the restart with the size of its last resize, not the one it attached with, and says it resumed", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  await c.call("session.create", { name: "sh", command: ["sleep", "1000"], rows: 40, cols: 120 });
  const attached = await d.client();
  await attached.subscribe({ session: "sh", events: ["state"], size: { rows: 30, cols: 100 } }, () => {});
  await attached.call("session.resize", { session: "sh", rows: 20, cols: 70 });
  const { promise: resumed, resolve } = Promise.withResolvers<void>();
  attached.onResume(resolve);

  expect((await d.cli(["daemon", "restart"])).code).toBe(0);
  await resumed;
  expect((await d.client().then((c2) => c2.call("session.info", { session: "sh" }))).size).toEqual({ rows: 20, cols: 70 });
}, 60_000);

// Regression: the client remembered a resize only when it named the session as the subscribe had
// (and made the subscription again by its old name after a rename, which closed the client).
test("a client attached by a session's name remembers a resize by its id, and one by its new name after a rename, for the restart", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  const { id } = await c.call("session.create", { name: "sh", command: ["sleep", "1000"], rows: 40, cols: 120 });
  const attached = await d.client();
  await attached.subscribe({ session: "sh", events: ["state"], size: { rows: 30, cols: 100 } }, () => {});
  await attached.call("session.resize", { session: id, rows: 25, cols: 90 });
  await c.call("session.rename", { session: "sh", name: "renamed" });
  const { promise: resumed, resolve } = Promise.withResolvers<void>();
  attached.onResume(resolve);
  expect((await d.cli(["daemon", "restart"])).code).toBe(0);
  await resumed;
  expect((await attached.call("session.info", { session: id })).size).toEqual({ rows: 25, cols: 90 });

  await attached.call("session.resize", { session: "renamed", rows: 20, cols: 70 });
  const { promise: again, resolve: resolveAgain } = Promise.withResolvers<void>();
  attached.onResume(resolveAgain);
  expect((await d.cli(["daemon", "restart"])).code).toBe(0);
  await again;
  expect((await attached.call("session.info", { session: id })).size).toEqual({ rows: 20, cols: 70 });
}, 60_000);

// Regression: a listener that threw ended the resume, and the client with it.
test("an onResume listener that throws leaves the others told and the connection up", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  await c.call("session.create", { name: "sh", command: ["sleep", "1000"] });
  const attached = await d.client();
  await attached.subscribe({ session: "sh", events: ["state"] }, () => {});
  attached.onResume(() => {
    throw new Error("a listener's own bug");
  });
  const { promise: resumed, resolve } = Promise.withResolvers<void>();
  attached.onResume(resolve);
  expect((await d.cli(["daemon", "restart"])).code).toBe(0);
  await resumed;
  expect((await attached.call("session.info", { session: "sh" })).state).toBe("running");
}, 60_000);

test("a session's own socket (interminai's) listens across the restart, answering for its session", async () => {
  await using d = await TestDaemon.start();
  const { c, id, socket } = await nativeSession(d, ["bash", "--norc", "--noprofile"], { env: { PS1: "own$ " } });
  expect((await c.call("session.wait", { session: id, text: "own$ " })).outcome).toBe("matched");
  expect((await d.cli(["daemon", "restart"])).code).toBe(0);
  expect(await ask(socket, '{"type":"INPUT","data":"echo via-$((1+1))\\n"}')).toEqual({ status: "ok", data: {} });
  const c2 = await d.client();
  expect((await c2.call("session.wait", { session: id, regex: "^via-2$" })).outcome).toBe("matched");
  expect((await c2.call("session.info", { session: id })).socket).toBe(socket);
}, 60_000);

test("HTTP is served on the same address after the restart, a port the system picked (--http 127.0.0.1:0) included", async () => {
  const http = await startHttpDaemon();
  await using d = http.daemon;
  expect((await d.cli(["daemon", "restart"])).code).toBe(0);
  await d.logged("taken over from");
  expect(d.log.split(`termd: http on ${http.url} `).length - 1).toBe(2);
  expect((await fetch(`${http.url}/healthz`)).status).toBe(200);
  expect((await http.rpc("system.ping")).pid).toBe(d.proc.pid);
}, 60_000);
