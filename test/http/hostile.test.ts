// HTTP from outside, as a hostile client sends it: requests without a Host, bad percent-escapes,
// bodies over the bound, guessed sign-ins, and a WebSocket handshake that would have the token
// echoed back. Each gets a clear answer in the JSON error shape, and the daemon logs no stack.
import { describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { sharedHttpDaemon } from "./http-daemon.ts";

const d = sharedHttpDaemon();

const ping = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "system.ping" });

/** Sends the request as written (its lines CRLF-joined) and reads one response: its head, and a body of its Content-Length. */
function raw(lines: string[]): Promise<{ status: number; head: string; body: string }> {
  const u = new URL(d.url);
  return new Promise((resolve, reject) => {
    const s = connect(Number(u.port), u.hostname);
    let out = "";
    const done = () => {
      const at = out.indexOf("\r\n\r\n");
      if (at < 0) return false;
      const head = out.slice(0, at);
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      if (out.length - at - 4 < length) return false;
      s.destroy();
      resolve({ status: Number(head.split(" ")[1]), head, body: out.slice(at + 4) });
      return true;
    };
    s.setEncoding("latin1");
    s.on("data", (c: string) => {
      out += c;
      done();
    });
    s.on("error", reject);
    s.on("close", () => done() || reject(new Error(`the daemon closed after ${JSON.stringify(out)}`)));
    s.write(lines.join("\r\n") + "\r\n\r\n");
  });
}

describe("malformed requests get 400 in the JSON error shape, and no stack in the log", () => {
  test("an empty Host, and HTTP/1.0 without one", async () => {
    const logged = d.daemon.log.length;
    for (const lines of [
      ["GET / HTTP/1.1", "Host:", "Connection: close"],
      ["GET / HTTP/1.0"],
      ["POST /rpc HTTP/1.0", "Content-Length: 2", "", "{}"],
    ]) {
      const r = await raw(lines);
      expect(r.status).toBe(400);
      expect(JSON.parse(r.body)).toEqual({ error: { code: "BAD_REQUEST", message: expect.stringContaining("Host") } });
    }
    expect(d.daemon.log.slice(logged)).toBe("");
  });

  test("a bad percent-escape in a session's path", async () => {
    const logged = d.daemon.log.length;
    for (const path of ["/sessions/%ZZ.cast", "/ws/cast/%E0%A4%A"]) {
      const r = await raw([`GET ${path} HTTP/1.1`, "Host: 127.0.0.1", `Authorization: Bearer ${d.token}`, "Connection: close"]);
      expect(r.status).toBe(400);
      expect(JSON.parse(r.body)).toEqual({ error: { code: "BAD_REQUEST", message: expect.stringContaining("percent-escape") } });
    }
    expect(d.daemon.log.slice(logged)).toBe("");
  });

  test("a body over 10 MiB gets 413 with the JSON error, declared or streamed", async () => {
    const big = "x".repeat(10 * 1024 * 1024 + 1);
    const declared = await d.post(big);
    expect(declared.status).toBe(413);
    expect(await declared.json()).toEqual({ error: { code: "PAYLOAD_TOO_LARGE", message: expect.stringContaining("10485760") } });
    const chunks = new ReadableStream({
      start(c) {
        for (let i = 0; i < 11; i++) c.enqueue(new Uint8Array(1024 * 1024).fill(120));
        c.close();
      },
    });
    const streamed = await fetch(`${d.url}/trl`, { method: "POST", headers: d.auth, body: chunks, duplex: "half" } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(await streamed.json()).toMatchObject({ error: { code: "PAYLOAD_TOO_LARGE" } });
    // The daemon goes on.
    expect((await d.rpc("system.ping")).pid).toBe(d.daemon.proc.pid);
  });
});

describe("sign-in", () => {
  const signIn = async () => {
    const r = await fetch(`${d.url}/login`, { method: "POST", body: new URLSearchParams({ token: d.token }), redirect: "manual" });
    expect(r.status).toBe(303);
    return r.headers.get("set-cookie")!;
  };
  const pinged = async (cookie: string) => (await d.post(ping, { Cookie: cookie })).status;

  test("each sign-in is the daemon's own, expires, and signing out ends it", async () => {
    const first = await signIn();
    const second = await signIn();
    // Random per sign-in, nothing derived from the token, and a day long.
    expect(first.split(";")[0]).not.toBe(second.split(";")[0]);
    expect(first).toContain("Max-Age=86400");
    const cookie = first.split(";")[0]!;
    expect(await pinged(cookie)).toBe(200);
    const out = await fetch(`${d.url}/logout`, { method: "POST", headers: { Cookie: cookie }, redirect: "manual" });
    expect(out.status).toBe(303);
    expect(out.headers.get("set-cookie")).toContain("Max-Age=0");
    // A copy of the cookie kept after signing out (a stolen one) no longer works; the other sign-in does.
    expect(await pinged(cookie)).toBe(401);
    expect(await pinged(second.split(";")[0]!)).toBe(200);
  });

  test("wrong tokens from one address are slowed down: after three, even the right one waits", async () => {
    for (let i = 0; i < 3; i++) {
      const r = await fetch(`${d.url}/login`, { method: "POST", body: new URLSearchParams({ token: `guess-${i}` }), redirect: "manual" });
      expect(r.status).toBe(401);
    }
    const locked = await fetch(`${d.url}/login`, { method: "POST", body: new URLSearchParams({ token: d.token }), redirect: "manual" });
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await locked.json()).toMatchObject({ error: { code: "TOO_MANY_ATTEMPTS" } });
    // Once the wait is over, the right token signs in (waiting for that, not for a fixed time).
    for (;;) {
      const r = await fetch(`${d.url}/login`, { method: "POST", body: new URLSearchParams({ token: d.token }), redirect: "manual" });
      if (r.status === 303) break;
      expect(r.status).toBe(429);
      await Bun.sleep(100);
    }
  });
});

describe("the WebSocket subprotocol never carries the token back", () => {
  const handshake = (protocols: string) =>
    raw([
      "GET /ws HTTP/1.1",
      "Host: 127.0.0.1",
      "Upgrade: websocket",
      "Connection: Upgrade",
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
      "Sec-WebSocket-Version: 13",
      `Sec-WebSocket-Protocol: ${protocols}`,
    ]);

  test("offered beside termd, termd is chosen; offered alone, the upgrade is refused saying what to offer", async () => {
    const both = await handshake(`termd, termd.bearer.${d.token}`);
    expect(both.status).toBe(101);
    expect(both.head).toContain("Sec-WebSocket-Protocol: termd\r\n");
    expect(both.head).not.toContain(d.token);
    const alone = await handshake(`termd.bearer.${d.token}`);
    expect(alone.status).toBe(400);
    expect(alone.head + alone.body).not.toContain(d.token);
    expect(JSON.parse(alone.body)).toMatchObject({ error: { code: "BAD_SUBPROTOCOL" } });
  });
});
