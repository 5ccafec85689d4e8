// Running the daemon as a process: listen, stop cleanly on SIGTERM/SIGINT, never die of a stray
// exception (log it and keep serving), and exit once shut down.
import { Daemon, type DaemonOptions } from "./daemon.ts";

export async function runDaemon(opts: DaemonOptions, onReady?: () => void): Promise<never> {
  const daemon = new Daemon(opts);
  await daemon.listen();
  process.on("uncaughtException", (err) => console.error("termd: uncaught exception (still serving):", err));
  process.on("unhandledRejection", (err) => console.error("termd: unhandled rejection (still serving):", err));
  for (const sig of ["SIGTERM", "SIGINT"] as const) process.on(sig, () => void daemon.shutdown());
  process.on("SIGHUP", () => {});
  // Last resort: whatever ends the process, children are not left behind.
  process.on("exit", () => daemon.close());
  console.error(`termd: daemon ${process.pid} listening on ${opts.socketPath}`);
  onReady?.();
  await daemon.stopped.promise;
  process.exit(0);
}
