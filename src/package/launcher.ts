// The npm package's `termd` command (bin/termd.js, built for Node ≥ 20): runs this platform's
// binary with the same arguments, standard streams and exit status. Anything that stops it is
// said in a sentence, never a stack trace.
import { spawn } from "node:child_process";
import { locateBinary } from "./binary.ts";

const fail = (message: string): never => {
  process.stderr.write(message.endsWith("\n") ? message : `${message}\n`);
  process.exit(1);
};

const found = locateBinary();
if ("problem" in found) fail(found.problem);
const path = (found as { path: string }).path;

const child = spawn(path, process.argv.slice(2), { stdio: "inherit" });
// Ctrl-C, Ctrl-\ and a closed terminal reach the binary from the terminal itself (it is in this
// process's group); a SIGTERM aimed at this process (a supervisor's) is passed on.
const ignore = () => {};
for (const s of ["SIGINT", "SIGQUIT", "SIGHUP"] as const) process.on(s, ignore);
const forward = () => child.kill("SIGTERM");
process.on("SIGTERM", forward);

child.on("error", (err: NodeJS.ErrnoException) => {
  const why = err.code === "ENOEXEC" ? "it is not a program for this machine; reinstall termd on this machine" : err.message;
  fail(`termd: cannot run ${path}: ${why}`);
});
child.on("exit", (code, signal) => {
  if (signal) {
    // End the way the binary ended, so a shell sees the signal.
    for (const s of ["SIGINT", "SIGQUIT", "SIGHUP"] as const) process.off(s, ignore);
    process.off("SIGTERM", forward);
    process.kill(process.pid, signal);
  }
  process.exit(code ?? 1);
});
