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

/** How long `untilClosed` waits for the daemon to close after its reply, at most. */
const CLOSE_AFTER_REPLY_MS = 2000;

/**
 * `untilClosed`: the reply is answered once the daemon closed the connection too (at most
 * CLOSE_AFTER_REPLY_MS after it): STOP's reply comes before the session's socket is gone, and
 * termd closes the connection only after removing the file, so a script that runs `interminai
 * stop` and then looks finds it gone.
 */
export function request(socketPath: string, msg: Record<string, unknown>, untilClosed = false): Promise<Reply> {
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
    // The first line is the reply, however the connection ends.
    const reply = () => {
      const nl = buf.indexOf("\n");
      parseReply(nl >= 0 ? buf.slice(0, nl) : buf, resolve, reject);
    };
    let bounded = false;
    sock.on("data", (chunk: string) => {
      buf += chunk;
      if (!buf.includes("\n")) return;
      if (!untilClosed) finish(reply);
      else if (!bounded) {
        bounded = true;
        setTimeout(() => finish(reply), CLOSE_AFTER_REPLY_MS).unref();
      }
    });
    sock.on("end", () => finish(reply));
    sock.on("close", () => finish(reply));
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
export async function call(socketPath: string, msg: Record<string, unknown>, untilClosed = false): Promise<Record<string, unknown>> {
  const r = await request(socketPath, msg, untilClosed);
  if (r.status === "error") throw new Failure(`Error: ${r.error ?? ""}`);
  return r.data ?? {};
}
