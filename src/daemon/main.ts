// Running the daemon as a process: listen, stop cleanly on SIGTERM/SIGINT, never die of a stray
// exception (log it and keep serving), and exit once shut down.
import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { Daemon, type DaemonOptions } from "./daemon.ts";
import { faultText } from "../terminal/errors.ts";
import { serveHttp } from "../web/server.ts";
import { loadToken } from "../web/token.ts";

/** Writes the pid file; returns its removal, which leaves a file some later daemon wrote alone. */
function writePidFile(path: string): () => void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, String(process.pid), { mode: 0o644 });
  return () => {
    try {
      if (readFileSync(path, "utf8").trim() === String(process.pid)) unlinkSync(path);
    } catch {}
  };
}

export async function runDaemon(opts: DaemonOptions, onReady?: () => void): Promise<never> {
  const daemon = new Daemon(opts);
  await daemon.listen();
  if (opts.http) {
    let http;
    try {
      const token = loadToken(opts.stateDir);
      http = serveHttp(daemon, opts.http, token);
      console.error(`termd: http on ${http.url} (token from ${token.source})`);
    } catch (err) {
      daemon.close();
      throw err;
    }
    void daemon.stopped.promise.then(() => http.stop());
  }
  process.on("uncaughtException", (err) => console.error(`termd: uncaught exception (still serving): ${faultText(err)}`));
  process.on("unhandledRejection", (err) => console.error(`termd: unhandled rejection (still serving): ${faultText(err)}`));
  for (const sig of ["SIGTERM", "SIGINT"] as const) process.on(sig, () => void daemon.shutdown());
  process.on("SIGHUP", () => {});
  // Last resort: whatever ends the process, children are not left behind.
  process.on("exit", () => daemon.close());
  // Written once the socket answers, so a script that waits for the file can connect at once.
  if (opts.pidFile) {
    const removePidFile = writePidFile(opts.pidFile);
    process.on("exit", removePidFile);
  }
  console.error(`termd: daemon ${process.pid} listening on ${opts.socketPath}`);
  onReady?.();
  await daemon.stopped.promise;
  process.exit(0);
}
