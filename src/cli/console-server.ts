// The cp-console-server personality: this binary run under that name (dist/cp-console-server, a
// link) is context-pilot's console server. `cp-console-server SOCKET_PATH` starts a termd daemon
// of its own on that socket, detached in its own session as the real server's setsid() is, in
// the caller's working directory (context-pilot starts it in the project root, and a `create`
// without cwd runs there). Its state lives beside the socket, so it never meets the user's
// default daemon, and its pid goes where the real server writes it (server.sock → server.pid).
import { resolve } from "node:path";
import { startDaemon } from "./autostart.ts";

const USAGE = "Usage: cp-console-server <socket_path>";

/** server.sock → server.pid, as the real server derives it. */
function consoleServerFiles(socketPath: string): { pidFile: string; stateDir: string } {
  const base = socketPath.replace(/\.sock$/, "");
  return { pidFile: `${base}.pid`, stateDir: `${base}.termd` };
}

export async function runConsoleServer(argv: string[]): Promise<number> {
  const [arg, ...extra] = argv;
  if (arg === "--help" || arg === "-h") {
    console.log(
      `${USAGE}\n\nServes context-pilot's console protocol on SOCKET_PATH: a termd daemon with its state in\nSOCKET_PATH's name with .termd for .sock, and its pid in the same name with .pid.`,
    );
    return 0;
  }
  if (arg === undefined || arg === "" || extra.length > 0) {
    console.error(USAGE);
    return 2;
  }
  const socketPath = resolve(arg);
  const { pidFile, stateDir } = consoleServerFiles(socketPath);
  try {
    const client = await startDaemon(socketPath, { stateDir, args: ["--pid-file", pidFile], cwd: process.cwd() });
    client.close();
    return 0;
  } catch (err) {
    console.error(`cp-console-server: ${(err as Error).message}`);
    return 1;
  }
}
