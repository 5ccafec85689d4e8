// The floor under a client command (bench section 9): the least a Bun client of the daemon does for
// `termd ls`, `info S`, `send S --text T`, `screen S` and `wait S --text T`. It connects as termd
// does, sends the same two calls (the build check's system.ping and the command's own, with the
// same params, byte for byte), in one write, waits for both answers and prints the result as text
// in one write. Compiled as dist/termd is (scripts/compile.ts); what termd takes over it is its own.
//
// argv: ls | info S | send S TEXT | screen S | wait S TEXT; the socket is $TERMD_SOCKET.
const [command, session, text] = process.argv.slice(2);

const call = (method: string, params: object) => JSON.stringify({ jsonrpc: "2.0", id: 2, method, params });
const CALLS: Record<string, () => string> = {
  ls: () => call("session.list", {}),
  info: () => call("session.info", { session }),
  send: () => call("session.input", { session, text }),
  screen: () => call("session.screen", { session, format: "text" }),
  wait: () => call("session.wait", { session, text }),
};
const request = CALLS[command!];
if (!request) throw new Error(`floor-client: no command ${command}`);

const dec = new TextDecoder();
let received = "";
const { promise, resolve } = Promise.withResolvers<void>();
const socket = await Bun.connect({
  unix: process.env.TERMD_SOCKET!,
  socket: {
    data(_s, d) {
      received += dec.decode(d, { stream: true });
      if (received.split("\n").length > 2) resolve();
    },
    close: () => resolve(),
  },
});
socket.write('{"jsonrpc":"2.0","id":1,"method":"system.ping","params":{}}\n' + request() + "\n");
await promise;
// The reply to the command's own call (id 2), whichever came first.
const lines = received.split("\n");
let reply = JSON.parse(lines[0]!);
if (reply.id !== 2) reply = JSON.parse(lines[1]!);
if (reply.error) throw new Error(reply.error.message);
const r = reply.result;
let out = "";
if (command === "ls") for (const s of r.sessions as { name: string }[]) out += s.name + "\n";
else if (command === "info") out = `${r.name} ${r.state}\n`;
else if (command === "send") out = "";
else if (command === "screen") out = (r.lines as string[]).join("\n") + "\n";
else out = r.outcome + "\n";
if (out !== "") await Bun.write(Bun.stdout, out);
socket.end();
export {};
