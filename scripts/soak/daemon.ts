// A private termd daemon per section, its stderr kept to show if it dies.
import { join } from "node:path";
import type { Subprocess } from "bun";
import { connect, type Client } from "../../src/client/index.ts";
import { daemons } from "./cleanup.ts";
import { withTimeout } from "./helpers.ts";
import { alive, childEnv, daemonArgs, untilListening } from "../common/daemon-process.ts";
import { ROOT } from "../common/measure.ts";

interface Daemon {
  proc: Subprocess<"ignore", "ignore", "pipe">;
  socket: string;
  client: Client;
  /** The daemon's last lines on stderr, shown if it dies (a fuzzed daemon may log a lot). */
  stderrTail: string[];
  /** Lines it wrote to stderr so far, its banner included. */
  stderrLines: () => number;
  /** Its distinct log lines that start a message (not a stack's "at" lines), counted; at most 50 kept. */
  messages: Map<string, number>;
  stop: () => Promise<void>;
}

/**
 * A daemon on `dir/LABEL.sock` with state in `dir/LABEL-state` (the same label again reuses the
 * state dir), its open-file limit raised to the hard limit: each session holds a PTY and files.
 */
export async function startDaemon(dir: string, label: string): Promise<Daemon> {
  const socket = join(dir, `${label}.sock`);
  const argv = [process.execPath, join(ROOT, "src/cli/main.ts"), ...daemonArgs(socket, join(dir, `${label}-state`))];
  // sh execs the daemon, so the pid stays the daemon's.
  const raise = `ulimit -n "$(ulimit -Hn)" 2>/dev/null; exec "$@"`;
  const proc = Bun.spawn(["sh", "-c", raise, "sh", ...argv], { stdin: "ignore", stdout: "ignore", stderr: "pipe", env: childEnv() });
  daemons.add(proc);
  void proc.exited.then(() => daemons.delete(proc));
  const { banner: seen, reader } = await untilListening(proc);
  const dec = new TextDecoder();
  const stderrTail = seen.split("\n").filter(Boolean);
  let lines = stderrTail.length;
  const messages = new Map<string, number>();
  // Keep draining stderr so the daemon never blocks on a full pipe.
  void (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) return;
      for (const line of dec.decode(value).split("\n")) {
        if (!line) continue;
        stderrTail.push(line.slice(0, 300));
        lines++;
        const m = line.slice(0, 200);
        if (!/^\s/.test(m) && (messages.has(m) || messages.size < 50)) messages.set(m, (messages.get(m) ?? 0) + 1);
      }
      if (stderrTail.length > 40) stderrTail.splice(0, stderrTail.length - 40);
    }
  })();
  const client = await connect(socket);
  const stop = async () => {
    if (alive(proc.pid)) await withTimeout(client.call("system.shutdown", { grace_ms: 500 }), 3000, "system.shutdown").catch(() => {});
    client.close();
    const killer = setTimeout(() => proc.kill("SIGKILL"), 5000);
    await proc.exited;
    clearTimeout(killer);
  };
  return { proc, socket, client, stderrTail, stderrLines: () => lines, messages, stop };
}
