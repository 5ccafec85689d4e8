// 14. Half-close: a client sends its requests, then shuts down its writing side (as `nc -N` or a
// script's `shutdown(SHUT_WR)` does), and counts the replies it gets before the daemon closes.
import { connect } from "node:net";
import { startDaemon } from "./daemon.ts";
import type { Options } from "./flags.ts";
import { verdict } from "./report.ts";
import { MB, table } from "../common/measure.ts";

/** How long a case waits for the daemon's close before it counts what came. */
const GIVE_UP_MS = 30_000;

/** Writes `requests`, half-closes, and counts reply lines until the daemon closes (or GIVE_UP_MS). */
function halfClosed(socket: string, requests: Buffer): Promise<{ replies: number; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const s = connect(socket);
    let replies = 0;
    const done = (closed: boolean) => {
      clearTimeout(timer);
      s.destroy();
      resolve({ replies, closed });
    };
    const timer = setTimeout(() => done(false), GIVE_UP_MS);
    s.on("data", (chunk: Buffer) => {
      for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) replies++;
    });
    s.on("end", () => done(true));
    s.on("error", reject);
    s.on("connect", () => s.end(requests));
  });
}

const line = (method: string, params?: object) => `${JSON.stringify({ jsonrpc: "2.0", id: 1, method, params })}\n`;

export async function reportHalfClose(_o: Options, dir: string, verdicts: string[][]): Promise<void> {
  const d = await startDaemon(dir, "half-close");
  const rows: string[][] = [["requests, then the client half-closes", "replies / asked", "then closed"]];
  try {
    const s = await d.client.call("session.create", { command: ["cat"] });
    const cases: [string, string, number][] = [
      ["20,000 pings", line("system.ping").repeat(20_000), 20_000],
      ["a session.wait (times out after 500 ms)", line("session.wait", { session: s.id, text: "never shown", timeout_ms: 500 }), 1],
      ["a 1 MiB request line", line("system.ping", { pad: "x".repeat(MB) }), 1],
    ];
    for (const [what, requests, asked] of cases) {
      const { replies, closed } = await halfClosed(d.socket, Buffer.from(requests));
      rows.push([`  ${what}`, `${replies} / ${asked}`, closed ? "yes" : "no"]);
      verdicts.push([`half-close: every reply after ${what}`, `${replies} / ${asked}`, verdict(replies === asked && closed)]);
    }
  } finally {
    await d.stop();
  }
  console.log("14. Half-close: replies a client gets after it shuts down its writing side");
  console.log(table(rows) + "\n");
}
