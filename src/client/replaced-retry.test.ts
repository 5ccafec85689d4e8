// What termd/client makes of a DAEMON_REPLACED line, against a daemon played by the test: the
// order in which a real daemon's lines race a call under way cannot be set from outside it.
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RpcError } from "../protocol/errors.ts";
import { Client } from "./client.ts";

const replaced = new RpcError("DAEMON_REPLACED", "the daemon is being replaced").toWire();
let dir: string;
let server: ReturnType<typeof Bun.listen> | undefined;
afterEach(() => {
  server?.stop(true);
  rmSync(dir, { recursive: true, force: true });
});

/** A daemon that answers the n-th line it reads (over all connections) with `answer(n, id, method)`, and closes a connection after an error. */
function playDaemon(answer: (n: number, id: number, method: string) => { id: number | null; error?: object; result?: object }): string {
  dir = mkdtempSync(join(tmpdir(), "termd-replaced-"));
  const path = join(dir, "sock");
  let n = 0;
  server = Bun.listen<{ buf: string }>({
    unix: path,
    socket: {
      open: (s) => void (s.data = { buf: "" }),
      data(s, chunk) {
        s.data.buf += chunk.toString();
        for (let nl = s.data.buf.indexOf("\n"); nl >= 0; nl = s.data.buf.indexOf("\n")) {
          const { id, method } = JSON.parse(s.data.buf.slice(0, nl));
          s.data.buf = s.data.buf.slice(nl + 1);
          const reply = answer(n++, id, method);
          s.write(`${JSON.stringify({ jsonrpc: "2.0", ...reply })}\n`);
          if (reply.error) return void s.end();
        }
      },
    },
  });
  return path;
}

test("a call the daemon refused with its own id did not run: it is sent again once the next image answers", async () => {
  const path = playDaemon((n, id, method) => {
    if (n === 0) return { id, error: replaced };
    if (method === "system.ping") return { id, result: { pid: 1, started_at: "later" } };
    return { id, result: { sessions: [] } };
  });
  using c = await Client.open(path);
  expect(await c.call("session.list")).toEqual({ sessions: [] });
});

test("a farewell for no request may have cut the call under way: it is not sent again", async () => {
  // A fresh connection's first call, under way when the daemon said its farewell: the first line
  // the connection gets is that farewell, and the call may have run (an exec.run's command).
  const path = playDaemon((n, _id, _method) => (n === 0 ? { id: null, error: replaced } : { id: 2, result: { ran: "twice" } }));
  using c = await Client.open(path);
  expect(await c.call("session.list").catch((err: unknown) => err)).toMatchObject({ name: "DAEMON_REPLACED" });
  expect(c.retrying).toBe(0);
});
