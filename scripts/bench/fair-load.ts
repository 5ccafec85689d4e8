// The fairness section's other clients, a process of their own so that their work does not share
// the measuring client's event loop: connects, says "ready" once its load runs, keeps it up until
// its stdin closes, then prints "done N" (requests answered) and exits.
//   bun scripts/bench/fair-load.ts SOCKET pipeline CONNECTIONS
//   bun scripts/bench/fair-load.ts SOCKET input SESSION      8 MiB session.input, one after another
//   bun scripts/bench/fair-load.ts SOCKET output SESSION [BYTES]  session.output pages (1 MiB), one after another
//   bun scripts/bench/fair-load.ts SOCKET lines              10 MiB system.ping lines, one after another
import { connect, type Socket } from "node:net";
import { MAX_LINE_BYTES } from "../../src/protocol/framing.ts";
import { inputText } from "./input.ts";

const [socketPath, kind, arg, pageBytes] = process.argv.slice(2) as [string, string, string | undefined, string | undefined];
/** Pings per write of a pipelining client. */
const BATCH = 400;

let stopping = false;
let answered = 0;

function open(): Promise<Socket> {
  const socket = connect(socketPath);
  return new Promise((resolve, reject) => {
    socket.once("connect", () => resolve(socket));
    socket.once("error", reject);
  });
}

/** Calls `onReply` for each reply line the socket brings. */
function replies(socket: Socket, onReply: (line: string) => void): void {
  let buf = "";
  socket.on("data", (chunk: Buffer) => {
    buf += chunk.toString();
    for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
      onReply(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
    }
  });
}

/** A client that pipelines pings, BATCH a write, as fast as its socket takes them (reading every reply). */
async function pipeline(): Promise<void> {
  const batch = Buffer.from('{"jsonrpc":"2.0","id":1,"method":"system.ping"}\n'.repeat(BATCH));
  const socket = await open();
  const send = () => {
    while (!stopping && socket.write(batch)) {}
  };
  socket.on("drain", send);
  replies(socket, () => answered++);
  send();
}

/** One request after another, each sent once the last is answered. */
async function oneAfterAnother(line: Buffer): Promise<void> {
  const socket = await open();
  replies(socket, (reply) => {
    if (!reply.includes('"result"')) throw new Error(`a ${kind} request failed: ${reply.slice(0, 300)}`);
    answered++;
    if (!stopping) socket.write(line);
  });
  socket.write(line);
}

const request = (method: string, params: object) => Buffer.from(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method, params })}\n`);

if (kind === "pipeline") for (let i = 0; i < Number(arg ?? 4); i++) await pipeline();
else if (kind === "input") await oneAfterAnother(request("session.input", { session: arg, text: inputText(8 << 20) }));
else if (kind === "output") {
  const max_bytes = Number(pageBytes ?? 1 << 20);
  await oneAfterAnother(request("session.output", { session: arg, from: 0, max_bytes }));
} else if (kind === "lines") {
  const head = '{"jsonrpc":"2.0","id":1,"method":"system.ping","params":{"pad":"';
  const tail = '"}}\n';
  await oneAfterAnother(Buffer.from(head + "x".repeat(MAX_LINE_BYTES - head.length - tail.length) + tail));
} else throw new Error(`unknown load ${kind}`);

process.stdout.write("ready\n");
for await (const _ of process.stdin) {
}
stopping = true;
process.stdout.write(`done ${answered}\n`);
process.exit(0);
