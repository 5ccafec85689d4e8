// How a command reaches its daemon: connect, and start one only when none answers. The starting
// (autostart.ts, with Node's child_process, fs and path) is loaded only then: a command whose
// daemon answers does not pay for it at start-up.
import { connect, type Client } from "../client/client.ts";
import { isDaemonUrl } from "../client/daemon-url.ts";

export async function connectOrStart(socketPath: string): Promise<Client> {
  // A remote daemon is reached or not: starting one here would not be it.
  if (isDaemonUrl(socketPath)) return connect(socketPath);
  try {
    return await connect(socketPath);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "ECONNREFUSED") throw err;
  }
  return (await import("./autostart.ts")).startDaemon(socketPath);
}
