// A remote daemon through its URL: the client library and the CLI (`--url`, or TERMD_URL with
// TERMD_TOKEN) do over the WebSocket what they do over the socket, `termd attach` included.
import { expect, test } from "bun:test";
import { connect } from "../../src/client/index.ts";
import { SOURCE_BIN } from "../harness.ts";
import { sharedHttpDaemon } from "./http-daemon.ts";

const d = sharedHttpDaemon();

/** `termd ARGS` with no way to the daemon but the URL: its socket variable points nowhere. */
const remote = (args: string[], env: Record<string, string> = {}) =>
  d.daemon.cli(args, { env: { TERMD_SOCKET: "/nonexistent/termd.sock", TERMD_TOKEN: d.token, ...env } });

test("the client library reaches a daemon by URL and token: calls and events", async () => {
  const c = await connect(d.url, { token: d.token });
  try {
    expect((await c.call("system.ping")).pid).toBe(d.daemon.proc.pid);
    await c.call("session.create", { name: "lib", command: ["bash", "-c", "read x; echo got-$x"] });
    const exited = Promise.withResolvers<number | null>();
    let out = "";
    await c.subscribe({ session: "lib", events: ["output", "exit"], replay: true }, (e) => {
      if (e.type === "output") out += Buffer.from(String(e.data.base64), "base64").toString();
      if (e.type === "exit") exited.resolve(e.data.exit_code as number | null);
    });
    await c.call("session.input", { session: "lib", text: "it\r" });
    expect(await exited.promise).toBe(0);
    expect(out).toContain("got-it");
  } finally {
    c.close();
  }
  await expect(connect(d.url, { token: "wrong" })).rejects.toThrow("refused the token");
});

test("CLI commands work through --url and through TERMD_URL", async () => {
  const start = await remote(["start", "--url", d.url, "--name", "cli", "--env", "PS1=cli$ ", "--", "bash", "--norc", "--noprofile"]);
  expect(start).toMatchObject({ code: 0, stdout: "cli\n" });
  expect((await remote(["send", "--url", d.url, "cli", "--text", "echo remote-$((40+2))", "--keys", "Enter"])).code).toBe(0);
  expect((await remote(["wait", "cli", "--text", "remote-42"], { TERMD_URL: d.url })).code).toBe(0);
  // Independent of each other: run side by side (each is a process start).
  const [screen, ls, logs, status, rec] = await Promise.all([
    remote(["screen", "cli"], { TERMD_URL: d.url }),
    remote(["ls", "--json"], { TERMD_URL: d.url }),
    remote(["logs", "cli", "--raw"], { TERMD_URL: d.url }),
    remote(["daemon", "status", "--json"], { TERMD_URL: d.url }),
    // Files on the daemon's machine are out of a remote client's reach.
    remote(["start", "--url", d.url, "--record", "/tmp/termd-remote.cast", "--", "true"]),
  ]);
  expect(screen.stdout).toContain("remote-42");
  expect(JSON.parse(ls.stdout).map((s: any) => s.name)).toContain("cli");
  expect(logs.stdout).toContain("remote-42");
  expect(JSON.parse(status.stdout).pid).toBe(d.daemon.proc.pid);
  expect(rec.code).toBe(1);
  expect(rec.stderr).toContain("--http-allow-files");
  expect((await remote(["rm", "--force", "cli"], { TERMD_URL: d.url })).code).toBe(0);
  expect((await d.rpc("session.list")).sessions.map((s: any) => s.name)).not.toContain("cli");
});

test("the CLI says why a remote daemon refused it, and never starts one of its own", async () => {
  const [wrong, none, nobody, notUrl] = await Promise.all([
    remote(["ls", "--url", d.url], { TERMD_TOKEN: "wrong" }),
    remote(["ls", "--url", d.url], { TERMD_TOKEN: "" }),
    remote(["ls", "--url", "http://127.0.0.1:9"]),
    remote(["ls", "--url", "127.0.0.1:1234"]),
  ]);
  expect(wrong.code).toBe(1);
  expect(wrong.stderr).toContain("refused the token");
  expect(none.stderr).toContain("needs a token");
  expect(nobody).toMatchObject({ code: 1 });
  expect(nobody.stderr).toContain("no termd daemon answers");
  expect(notUrl.code).toBe(2);
});

test("termd attach --url: the screen painted at once, typing reaches the session, Ctrl-\\ detaches", async () => {
  const c = await d.daemon.client();
  await c.call("session.create", { name: "target", command: ["bash", "--norc", "--noprofile"], env: { PS1: "target$ " } });
  await c.call("session.input", { session: "target", text: "echo painted-first\r" });
  await c.call("session.wait", { session: "target", regex: "^painted-first$" });
  // The outer terminal: a real PTY running bash, in which a person runs `termd attach --url`.
  await c.call("session.create", {
    name: "outer",
    command: ["bash", "--norc", "--noprofile"],
    env: { PS1: "outer$ ", TERMD_TOKEN: d.token, TERMD_SOCKET: "/nonexistent/termd.sock" },
  });
  await c.call("session.wait", { session: "outer", text: "outer$ " });
  const attach = SOURCE_BIN.map((a) => `'${a}'`).join(" ") + ` attach --url ${d.url} target`;
  await c.call("session.input", { session: "outer", text: attach });
  await c.call("session.input", { session: "outer", keys: ["Enter"] });
  expect((await c.call("session.wait", { session: "outer", text: "painted-first" })).screen.alternate).toBe(true);
  await c.call("session.input", { session: "outer", text: "echo typed-$((2+3))" });
  await c.call("session.input", { session: "outer", keys: ["Enter"] });
  expect((await c.call("session.wait", { session: "target", regex: "^typed-5$" })).outcome).toBe("matched");
  expect((await c.call("session.wait", { session: "outer", regex: "^typed-5$" })).outcome).toBe("matched");
  await c.call("session.input", { session: "outer", keys: ["C-\\"] });
  const back = await c.call("session.wait", { session: "outer", text: "[detached from target]" });
  expect(back.screen.alternate).toBe(false);
  expect((await c.call("session.info", { session: "target" })).state).toBe("running");
});
