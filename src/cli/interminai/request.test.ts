// One interminai request, in this process: against a session's own socket in a daemon of this
// file's, and against a socket that answers nothing or what is not a reply (a daemon that died, or
// another program), each failure in interminai's (anyhow's) words.
import { afterAll, expect, test } from "bun:test";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { sharedDaemon } from "../../../test/harness.ts";
import { Failure } from "./args.ts";
import { call } from "./request.ts";

const s = sharedDaemon();
const servers: Server[] = [];
afterAll(() => {
  for (const server of servers) server.close();
});

/** A socket whose server answers every connection with `reply`, then closes it. */
async function answering(name: string, reply: string): Promise<string> {
  const path = join(s.dir, name);
  const server = createServer((sock) => sock.end(reply));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return path;
}

test("an ok reply's data; an error reply is Error: MESSAGE", async () => {
  const socket = join(s.dir, "ia.sock");
  await s.c.call("session.create", { command: ["sleep", "100"], cwd: s.dir, socket, socket_dialect: "interminai", rows: 5, cols: 20 });
  expect(await call(socket, { type: "STATUS" })).toMatchObject({ running: true, size: { cols: 20, rows: 5 } });
  await expect(call(socket, { type: "BOGUS" })).rejects.toThrow(new Failure("Error: Unknown command: BOGUS"));
});

test("no socket, a reply that never comes, and one that is not JSON fail as interminai's do", async () => {
  const none = join(s.dir, "none.sock");
  await expect(call(none, { type: "STATUS" })).rejects.toThrow(
    new Failure("Error: Failed to connect to daemon socket\n\nCaused by:\n    No such file or directory (os error 2)"),
  );
  await expect(call(await answering("silent.sock", ""), { type: "STATUS" })).rejects.toThrow(
    new Failure("Error: EOF while parsing a value at line 1 column 0"),
  );
  await expect(call(await answering("other.sock", "hello\n"), { type: "STATUS" })).rejects.toThrow(
    new Failure("Error: invalid reply from daemon: hello"),
  );
  await expect(call(await answering("json.sock", '{"status":"maybe"}\n'), { type: "STATUS" })).rejects.toThrow(
    new Failure('Error: invalid reply from daemon: {"status":"maybe"}'),
  );
});
