// A private termd daemon per section, on a socket in the run's temp dir.
import { join } from "node:path";
import type { Subprocess } from "bun";
import { connect, type Client } from "../../src/client/index.ts";
import { childEnv, daemonArgs, terminateSync, untilListening } from "../common/daemon-process.ts";
import { ROOT } from "../common/measure.ts";
import { onCleanup } from "./cleanup.ts";

interface Daemon {
  proc: Subprocess<"ignore", "ignore", "pipe">;
  socket: string;
  client: Client;
  stop: () => Promise<void>;
}

/** `openFiles`: raise the daemon's open-file limit that far, or else to the hard limit. */
export async function startDaemon(dir: string, label: string, openFiles?: number): Promise<Daemon> {
  const socket = join(dir, `${label}.sock`);
  const argv = [process.execPath, join(ROOT, "src/cli/main.ts"), ...daemonArgs(socket, join(dir, `${label}-state`))];
  // sh execs the daemon, so the pid stays the daemon's.
  const raise = `ulimit -n ${openFiles} 2>/dev/null || ulimit -n "$(ulimit -Hn)"; exec "$@"`;
  const proc = Bun.spawn(openFiles ? ["sh", "-c", raise, "sh", ...argv] : argv, {
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
    env: childEnv(),
  });
  const kill = onCleanup(() => terminateSync(proc));
  const { reader } = await untilListening(proc);
  // Keep draining stderr so the daemon never blocks on a full pipe; show it only if it complains.
  const dec = new TextDecoder();
  void (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) return;
      const text = dec.decode(value);
      if (/error|exception|fail/i.test(text)) process.stderr.write(`[termd ${label}] ${text}`);
    }
  })();
  const client = await connect(socket);
  const stop = async () => {
    kill();
    try {
      await Promise.race([client.call("system.shutdown", { grace_ms: 500 }), Bun.sleep(3000)]);
    } catch {}
    client.close();
    const killer = setTimeout(() => proc.kill("SIGKILL"), 5000);
    await proc.exited;
    clearTimeout(killer);
  };
  onCleanup(() => terminateSync(proc), stop);
  return { proc, socket, client, stop };
}
