// One interminai request: connect to the session socket, send one JSON line, read one JSON line
// (the daemon closes after it). Works against termd's dialect and against interminai's own daemon.
// Failures read as interminai's (anyhow) do: "Error: …", the OS reason under "Caused by:".
import { connect } from "node:net";
import { Failure } from "./args.ts";

export type Reply = { status: "ok"; data?: Record<string, unknown> } | { status: "error"; error?: string };

/** The OS's wording, as Rust prints an io::Error. */
function osText(err: NodeJS.ErrnoException): string {
  const known: Record<string, [string, number]> = {
    ENOENT: ["No such file or directory", 2],
    ECONNREFUSED: ["Connection refused", 111],
    EACCES: ["Permission denied", 13],
    ENOTSOCK: ["Socket operation on non-socket", 88],
    ECONNRESET: ["Connection reset by peer", 104],
    EPIPE: ["Broken pipe", 32],
  };
  const k = err.code ? known[err.code] : undefined;
  return k ? `${k[0]} (os error ${k[1]})` : err.message;
}

export function request(socketPath: string, msg: Record<string, unknown>): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const sock = connect(socketPath);
    let connected = false;
    let buf = "";
    let done = false;
    const finish = (fn: () => void) => {
      if (done) return;
      done = true;
      sock.destroy();
      fn();
    };
    sock.setEncoding("utf8");
    sock.on("connect", () => {
      connected = true;
      sock.write(JSON.stringify(msg) + "\n");
    });
    sock.on("data", (chunk: string) => {
      buf += chunk;
      const nl = buf.indexOf("\n");
      if (nl >= 0) finish(() => parseReply(buf.slice(0, nl), resolve, reject));
    });
    sock.on("end", () => finish(() => parseReply(buf, resolve, reject)));
    sock.on("close", () => finish(() => parseReply(buf, resolve, reject)));
    sock.on("error", (err: NodeJS.ErrnoException) => {
      const what = connected ? "Failed to talk to daemon" : "Failed to connect to daemon socket";
      finish(() => reject(new Failure(`Error: ${what}\n\nCaused by:\n    ${osText(err)}`)));
    });
  });
}

function parseReply(line: string, resolve: (r: Reply) => void, reject: (e: Error) => void): void {
  try {
    const r = JSON.parse(line) as Reply;
    if (typeof r !== "object" || r === null || (r.status !== "ok" && r.status !== "error")) throw new Error("not a reply");
    resolve(r);
  } catch {
    reject(
      new Failure(
        line.trim() === "" ? "Error: EOF while parsing a value at line 1 column 0" : `Error: invalid reply from daemon: ${line.trim()}`,
      ),
    );
  }
}

/** The reply's data; an error reply becomes interminai's "Error: <message>", exit 1. */
export async function call(socketPath: string, msg: Record<string, unknown>): Promise<Record<string, unknown>> {
  const r = await request(socketPath, msg);
  if (r.status === "error") throw new Failure(`Error: ${r.error ?? ""}`);
  return r.data ?? {};
}
