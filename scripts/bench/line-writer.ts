// Section 11's other client, a process of its own so that its 10 MiB write does not share the
// pinging client's event loop: connects, says so, sends one big request line of the kind asked,
// and prints how long its reply took.
//   bun scripts/bench/line-writer.ts SOCKET escapes|plain|unicode
import { connect } from "node:net";
import { MAX_LINE_BYTES } from "../../src/protocol/framing.ts";

const [socketPath, kind] = process.argv.slice(2) as [string, string];
const head = '{"jsonrpc":"2.0","id":1,"method":"system.ping","params":{"pad":"';
const tail = '"}}\n';
// Escapes parse slowest for their size; "é€" is a two-byte-per-character string once parsed.
const unit = kind === "escapes" ? '\\u001b[1m\\n\\t\\"x' : kind === "unicode" ? "é€" : "x";
const room = MAX_LINE_BYTES - head.length - tail.length;
const line = Buffer.from(head + unit.repeat(Math.floor(room / Buffer.byteLength(unit))) + tail);

const socket = connect(socketPath);
await new Promise<void>((resolve, reject) => {
  socket.once("connect", resolve);
  socket.once("error", reject);
});
process.stdout.write("connected\n");
const t0 = performance.now();
socket.write(line);
let got = "";
socket.on("data", (chunk: Buffer) => {
  got += chunk.toString();
  if (!got.includes("\n")) return;
  const reply = JSON.parse(got.slice(0, got.indexOf("\n"))) as { result?: unknown; error?: { message: string } };
  const ms = performance.now() - t0;
  process.stdout.write(`answered ${ms} ${reply.result !== undefined ? "ok" : reply.error?.message}\n`);
  socket.destroy();
});
