// termd over HTTP and WebSocket: the token, the Host and Origin checks, and the socket's protocol
// through POST /rpc, GET /ws, POST /trl and the asciicast endpoints, against a real daemon on an
// ephemeral port driving real programs.
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sharedHttpDaemon, startHttpDaemon, WsRpc } from "./http-daemon.ts";

const d = sharedHttpDaemon();

/** GET /ws/cast/`session`: its lines as they come, once the header and the screen are in (painted), and its close code. */
function liveCast(session: string): { lines: any[]; painted: Promise<void>; closed: Promise<number> } {
  const ws = new WebSocket(d.url.replace("http", "ws") + `/ws/cast/${session}`, { headers: d.auth } as unknown as string[]);
  const lines: any[] = [];
  const painted = Promise.withResolvers<void>();
  const closed = Promise.withResolvers<number>();
  ws.onmessage = (m) => {
    lines.push(JSON.parse(String(m.data)));
    if (lines.length === 2) painted.resolve();
  };
  ws.onclose = (e) => closed.resolve(e.code);
  return { lines, painted: painted.promise, closed: closed.promise };
}

const ping = { jsonrpc: "2.0", id: 1, method: "system.ping" };

describe("the token", () => {
  test("is generated into the state dir, readable by its owner only, and shown by termd token", async () => {
    expect(d.token).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(statSync(join(d.daemon.stateDir, "http-token")).mode & 0o777).toBe(0o600);
    const r = await d.daemon.cli(["token", "--state-dir", d.daemon.stateDir]);
    expect(r).toMatchObject({ code: 0, stdout: `${d.token}\n` });
  });

  test("a request without it, or with a wrong one, gets 401 and a JSON error", async () => {
    for (const headers of [
      {} as Record<string, string>,
      { Authorization: "Bearer not-the-token" },
      { Authorization: `Basic ${d.token}` },
    ]) {
      const r = await d.post(ping, headers);
      expect(r.status).toBe(401);
      expect(await r.json()).toMatchObject({ error: { code: "UNAUTHORIZED" } });
    }
    const ws = new WebSocket(d.url.replace("http", "ws") + "/ws");
    const closed = await new Promise<string>((resolve) => ((ws.onopen = () => resolve("open")), (ws.onerror = () => resolve("refused"))));
    expect(closed).toBe("refused");
  });

  test("a WebSocket client that cannot set headers offers it as a subprotocol", async () => {
    const open = (protocols: string[]) =>
      new Promise<WebSocket | null>((resolve) => {
        const ws = new WebSocket(d.url.replace("http", "ws") + "/ws", protocols);
        ws.onopen = () => resolve(ws);
        ws.onerror = () => resolve(null);
      });
    const ws = await open(["termd", `termd.bearer.${d.token}`]);
    expect(ws?.protocol).toBe("termd");
    ws?.close();
    expect(await open(["termd", "termd.bearer.wrong"])).toBeNull();
  });

  test("the page's sign-in form sets a cookie that stands for the token", async () => {
    const page = await fetch(`${d.url}/`);
    expect(page.status).toBe(401);
    expect(await page.text()).toContain('action="/login"');
    const wrong = await fetch(`${d.url}/login`, { method: "POST", body: new URLSearchParams({ token: "nope" }), redirect: "manual" });
    expect(wrong.status).toBe(401);
    const r = await fetch(`${d.url}/login`, { method: "POST", body: new URLSearchParams({ token: d.token }), redirect: "manual" });
    expect(r.status).toBe(303);
    const cookie = r.headers.get("set-cookie")!;
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Strict");
    expect(cookie).not.toContain(d.token);
    const pair = cookie.split(";")[0]!;
    const ok = await d.post(ping, { Cookie: pair });
    expect(((await ok.json()) as any).result.pid).toBe(d.daemon.proc.pid);
    // Behind a proxy that asks for Basic credentials and passes them on, the cookie still counts;
    // a wrong Bearer token does not fall back to it.
    const basic = { Cookie: pair, Authorization: `Basic ${btoa("ops:secret")}` };
    const proxied = await d.post(ping, basic);
    expect(((await proxied.json()) as any).result.pid).toBe(d.daemon.proc.pid);
    const wrongBearer = await d.post(ping, { Cookie: pair, Authorization: "Bearer nope" });
    expect(wrongBearer.status).toBe(401);
  });
});

describe("Host and Origin", () => {
  test("a Host the daemon does not answer to is refused, even with the token", async () => {
    const r = await d.post(ping, { ...d.auth, Host: "rebound.example:80" });
    expect(r.status).toBe(403);
    expect(await r.json()).toMatchObject({ error: { code: "FORBIDDEN_HOST" } });
    const port = new URL(d.url).port;
    const local = await d.post(ping, { ...d.auth, Host: `localhost:${port}` });
    expect(local.status).toBe(200);
  });

  test("a WebSocket from another origin is refused; one from the daemon's own opens", async () => {
    await expect(WsRpc.open(d.url, { ...d.auth, Origin: "http://evil.example" })).rejects.toThrow("did not open");
    const own = await WsRpc.open(d.url, { ...d.auth, Origin: d.url });
    expect((await own.call("system.ping")).pid).toBe(d.daemon.proc.pid);
    own.close();
  });

  test("a state-changing request from another origin is refused", async () => {
    const r = await d.post(ping, { ...d.auth, Origin: "http://evil.example" });
    expect(r.status).toBe(403);
    expect(await r.json()).toMatchObject({ error: { code: "FORBIDDEN_ORIGIN" } });
  });
});

describe("POST /rpc", () => {
  test("answers ping, a batch, and a notification", async () => {
    expect((await d.rpc("system.ping")).pid).toBe(d.daemon.proc.pid);
    const batch = [ping, { jsonrpc: "2.0", id: 2, method: "no.such" }, { jsonrpc: "2.0", method: "system.ping" }];
    const r = await d.post(batch);
    const replies = (await r.json()) as any[];
    expect(replies.map((x) => x.id)).toEqual([1, 2]);
    expect(replies[1].error.data.code).toBe("METHOD_NOT_FOUND");
    const n = await d.post({ jsonrpc: "2.0", method: "system.ping" });
    expect(n.status).toBe(204);
    const bad = await d.post("{not json");
    expect(((await bad.json()) as any).error.data.code).toBe("PARSE_ERROR");
    // A body from 256 KiB up is parsed off the daemon's thread, with the same answers; bytes that
    // are not UTF-8 read as U+FFFD there too.
    const pad = "x".repeat(300 * 1024);
    const big = Buffer.concat([
      Buffer.from(`{"jsonrpc":"2.0","id":7,"method":"system.ping","params":{"pad":"${pad}`),
      Buffer.from([0xff]),
      Buffer.from('"}}'),
    ]);
    const bigReply = await fetch(`${d.url}/rpc`, { method: "POST", headers: d.auth, body: big });
    expect(((await bigReply.json()) as any).id).toBe(7);
    const bigBad = await d.post(`{"pad":"${pad}`);
    expect(((await bigBad.json()) as any).error.data.code).toBe("PARSE_ERROR");
  });

  test("a full vim edit: open, type, save, quit, and the file holds the text", async () => {
    const dir = mkdtempSync(join(tmpdir(), "termd-http-vim-"));
    try {
      const file = join(dir, "note.txt");
      await d.rpc("session.create", { name: "vim-http", command: ["vim", "-u", "NONE", "-N", "-n", "-i", "NONE", file], cwd: dir });
      expect((await d.rpc("session.wait", { session: "vim-http", regex: "^~" })).outcome).toBe("matched");
      await d.rpc("session.input", { session: "vim-http", keys: ["i"] });
      await d.rpc("session.input", { session: "vim-http", text: "typed over http" });
      await d.rpc("session.input", { session: "vim-http", keys: ["Escape"] });
      expect((await d.rpc("session.wait", { session: "vim-http", text: "typed over http" })).outcome).toBe("matched");
      await d.rpc("session.input", { session: "vim-http", text: ":wq" });
      await d.rpc("session.input", { session: "vim-http", keys: ["Enter"] });
      expect(await d.rpc("session.wait", { session: "vim-http", exit: true })).toMatchObject({ outcome: "exited", exit_code: 0 });
      expect(readFileSync(file, "utf8")).toBe("typed over http\n");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("params that write files on the daemon's machine are refused", async () => {
    for (const p of [{ log_path: "/tmp/termd-http-should-not-exist.log" }, { record: "/tmp/x.cast" }, { socket: "/tmp/x.sock" }]) {
      const r = await d.post({ jsonrpc: "2.0", id: 1, method: "session.create", params: { command: ["true"], ...p } });
      const body = (await r.json()) as any;
      expect(body.error.data).toMatchObject({ code: "UNAUTHORIZED", params: Object.keys(p) });
    }
    expect((await d.rpc("session.list")).sessions.map((s: any) => s.command[0])).not.toContain("true");
    // The same on the WebSocket: the check sits in dispatch, where every call runs.
    const ws = await WsRpc.open(d.url, d.auth);
    await expect(ws.call("session.create", { command: ["true"], record: "/tmp/x.cast" })).rejects.toThrow("--http-allow-files");
    ws.close();
  });
});

test("POST /trl speaks TRL's dialect", async () => {
  const post = async (msg: unknown) =>
    (await fetch(`${d.url}/trl`, { method: "POST", headers: d.auth, body: JSON.stringify(msg) })).json() as Promise<any>;
  const created = await post({ id: "c1", method: "session.create", params: { shell: "/bin/bash" } });
  expect(created).toMatchObject({ id: "c1", ok: true, data: { state: "idle" } });
  const ran = await post({ id: "r1", method: "exec.run", params: { session_id: created.data.session_id, command: "echo $((40+2))" } });
  expect(ran).toMatchObject({ id: "r1", ok: true, data: { stdout: "42\n", exit_code: 0 } });
  expect(await post({ id: "x", method: "no.such" })).toMatchObject({ ok: false, error: { code: "INVALID_PARAMS" } });
});

test("attach over WebSocket: subscribe with replay, input and resize as on the socket", async () => {
  const c = await WsRpc.open(d.url, d.auth);
  try {
    await c.call("session.create", { name: "ws-attach", command: ["bash", "--norc", "--noprofile"], env: { PS1: "ws$ " } });
    await c.call("session.wait", { session: "ws-attach", text: "ws$" });
    await c.call("session.subscribe", { session: "ws-attach", events: ["title"], size: { rows: 20, cols: 70 }, strip_queries: true });
    const snap = await c.call("session.screen", { session: "ws-attach", format: "ansi" });
    expect(snap.ansi).toContain("ws$");
    expect(snap.size).toEqual({ rows: 20, cols: 70 });
    await c.call("session.subscribe", { session: "ws-attach", events: ["output", "exit"], replay: snap.offset });
    await c.call("session.input", { session: "ws-attach", text: "echo $((6*7)) $(tput cols)\r" });
    const out = () =>
      c.events
        .filter((e) => e.type === "output")
        .map((e) => Buffer.from(e.data.base64, "base64").toString())
        .join("");
    await c.event(() => out().includes("42 70"));
    await c.call("session.resize", { session: "ws-attach", rows: 30, cols: 90 });
    expect((await c.call("session.info", { session: "ws-attach" })).size).toEqual({ rows: 30, cols: 90 });
    await c.call("session.input", { session: "ws-attach", text: "exit 5\r" });
    expect((await c.event((e) => e.type === "exit")).data.exit_code).toBe(5);
    // Every byte from the painted screen's offset on arrived, in order, with no gap.
    const outs = c.events.filter((e) => e.type === "output");
    expect(outs[0].data.from).toBe(snap.offset);
    for (let i = 1; i < outs.length; i++) expect(outs[i].data.from).toBe(outs[i - 1].data.to);
  } finally {
    c.close();
  }
});

describe("asciicast", () => {
  test("GET /sessions/ID.cast downloads a recording that parses back", async () => {
    await d.rpc("session.create", { name: "castme", command: ["bash", "-c", "printf 'one\\n'; read x; printf 'two\\n'"] });
    await d.rpc("session.wait", { session: "castme", text: "one" });
    await d.rpc("session.input", { session: "castme", text: "\r" });
    await d.rpc("session.wait", { session: "castme", exit: true });
    const r = await fetch(`${d.url}/sessions/castme.cast`, { headers: d.auth });
    expect(r.headers.get("content-type")).toBe("application/x-asciicast");
    expect(r.headers.get("content-disposition")).toContain('filename="castme.cast"');
    const [header, ...events] = (await r.text())
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(header).toMatchObject({ version: 2, width: 80, height: 24 });
    expect(events.every((e: any) => typeof e[0] === "number" && ["o", "i", "r"].includes(e[1]))).toBe(true);
    const text = events
      .filter((e: any) => e[1] === "o")
      .map((e: any) => e[2])
      .join("");
    expect(text).toContain("one");
    expect(text).toContain("two");
    const missing = await fetch(`${d.url}/sessions/nope.cast`, { headers: d.auth });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: "SESSION_NOT_FOUND" } });
  });

  test("GET /ws/cast/ID streams the screen, then live output, and closes when the session ends", async () => {
    await d.rpc("session.create", { name: "live", command: ["bash", "-c", "printf 'before\\n'; read x; printf 'after %s\\n' $x"] });
    await d.rpc("session.wait", { session: "live", text: "before" });
    const { lines, painted, closed } = liveCast("live");
    await painted;
    expect(lines[0]).toMatchObject({ version: 2, width: 80, height: 24 });
    expect(lines[1][0]).toBe(0);
    expect(lines[1][2]).toContain("before");
    await d.rpc("session.input", { session: "live", text: "later\r" });
    expect(await closed).toBe(1000);
    expect(
      lines
        .slice(2)
        .map((e) => e[2])
        .join(""),
    ).toContain("after later");
  });

  test("live casts and WebSocket subscribers of one flooding session all get its bytes: the log's, each once", async () => {
    await d.rpc("session.create", { name: "shared", command: ["sh", "-c", "read go; seq 1 100000"] });
    const casts = [0, 1].map(() => liveCast("shared"));
    const subscribers = await Promise.all([0, 1].map(() => WsRpc.open(d.url, d.auth)));
    for (const s of subscribers) await s.call("session.subscribe", { session: "shared", events: ["output", "exit"], replay: 0 });
    await Promise.all(casts.map((c) => c.painted));
    await d.rpc("session.input", { session: "shared", text: "go\r" });
    await Promise.all([...casts.map((c) => c.closed), ...subscribers.map((s) => s.event((e) => e.type === "exit"))]);
    const parts: Buffer[] = [];
    for (let from = 0, eof = false; !eof; ) {
      const r = await d.rpc("session.output", { session: "shared", from, max_bytes: 8 * 1024 * 1024 });
      parts.push(Buffer.from(r.base64, "base64"));
      eof = r.eof || r.to === from;
      from = r.to;
    }
    const log = Buffer.concat(parts);
    expect(log.length).toBeGreaterThan(600_000);
    for (const s of subscribers) {
      const output = s.events.filter((e) => e.type === "output");
      expect(output.every((e, i) => e.data.from === (i === 0 ? 0 : output[i - 1].data.to))).toBe(true);
      expect(Buffer.concat(output.map((e) => Buffer.from(e.data.base64, "base64"))).equals(log)).toBe(true);
      s.ws.close();
    }
    // Each cast painted an empty screen (the program had written nothing), then the output as it came.
    for (const c of casts) {
      expect(
        c.lines
          .slice(2)
          .filter((e) => e[1] === "o")
          .map((e) => e[2])
          .join(""),
      ).toBe(log.toString());
    }
  });
});

describe("the daemon's HTTP flags", () => {
  test("--allow-host, --allow-origin and --http-allow-files widen what the daemon accepts", async () => {
    const w = await startHttpDaemon({
      args: ["--allow-host", "termd.example.com", "--allow-origin", "https://ops.example.com", "--http-allow-files"],
    });
    try {
      const post = (headers: Record<string, string>, body: unknown = ping) =>
        fetch(`${w.url}/rpc`, { method: "POST", headers: { ...w.auth, ...headers }, body: JSON.stringify(body) });
      expect((await post({ Host: "termd.example.com" })).status).toBe(200);
      expect((await post({ Host: "other.example.com" })).status).toBe(403);
      expect((await post({ Origin: "https://ops.example.com" })).status).toBe(200);
      expect((await post({ Origin: "https://evil.example.com" })).status).toBe(403);
      const log = join(w.daemon.dir, "copied.log");
      const created = await post(
        {},
        { jsonrpc: "2.0", id: 1, method: "session.create", params: { command: ["bash", "-c", "echo into-the-log"], log_path: log } },
      );
      expect(((await created.json()) as any).result.name).toBeString();
      await w.rpc("session.wait", { session: ((await w.rpc("session.list")).sessions[0] as any).id, exit: true });
      expect(readFileSync(log, "utf8")).toContain("into-the-log");
    } finally {
      await w.daemon[Symbol.asyncDispose]();
    }
  });

  test("termd token prints TERMD_TOKEN when it is set; the allow flags need --http", async () => {
    expect((await d.daemon.cli(["token"], { env: { TERMD_TOKEN: "from-the-env" } })).stdout).toBe("from-the-env\n");
    const r = await d.daemon.cli(["daemon", "--allow-host", "x.example"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--allow-host goes with --http");
  });
});
