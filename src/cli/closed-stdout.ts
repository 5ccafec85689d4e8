// The command line's standard output and error. Under Bun they are written with Bun.write, in
// order: process.stdout is a node:stream whose first touch loads Node's stream machinery, which
// cost a command-line call more than the rest of its start-up. Under Node (the client stub) they
// are the process's streams.
//
// A reader that stops reading (`termd logs S | head -1`) closes the pipe under us: like any Unix
// tool, the command then ends at once and quietly, instead of a stack trace and a process that
// waits forever for the pipe to drain. A process that serves on after its caller went
// (interminai's foreground start) says so, and then a closed output ends nothing.

type Fd = "stdout" | "stderr";
type BunWrite = { write(dest: unknown, data: string | Uint8Array): Promise<number>; stdout: unknown; stderr: unknown };
const bun = (globalThis as { Bun?: BunWrite }).Bun;

let keepRunning = false;

function quit(err: NodeJS.ErrnoException): void {
  if (keepRunning) return;
  if (err.code === "EPIPE") process.exit(0);
  throw err;
}

let guarded = false;
/** Makes a closed stdout end the process quietly; for code that writes to process.stdout itself (MCP, attach). */
export function endQuietlyOnClosedStdout(): void {
  if (guarded) return;
  guarded = true;
  process.stdout.on("error", quit);
}

/** This process serves on after its caller closed the pipes: what it writes then is dropped, on stderr too. */
export function keepRunningOnClosedOutput(): void {
  keepRunning = true;
  endQuietlyOnClosedStdout();
  process.stderr.on("error", quit);
}

let chain: Promise<unknown> = Promise.resolve();

function writeNode(fd: Fd, bytes: Uint8Array | string): Promise<void> {
  if (fd === "stdout") endQuietlyOnClosedStdout();
  const stream = process[fd];
  return new Promise((resolve) => {
    try {
      if (stream.write(bytes)) resolve();
      else stream.once("drain", resolve);
    } catch (err) {
      quit(err as NodeJS.ErrnoException);
      resolve();
    }
  });
}

function write(fd: Fd, bytes: Uint8Array | string): Promise<void> {
  if (!bun) return writeNode(fd, bytes);
  const next = chain
    .then(() => bun.write(bun[fd], bytes))
    .then(
      () => {},
      (err) => quit(err as NodeJS.ErrnoException),
    );
  chain = next;
  return next;
}

/** Writes to stdout and resolves once it may take more (a slow terminal or pipe holds us back). */
export const writeOut = (bytes: Uint8Array | string): Promise<void> => write("stdout", bytes);
export const writeErr = (bytes: Uint8Array | string): Promise<void> => write("stderr", bytes);

/** Resolves once everything written so far is out (a command's last words before it returns). */
export const flushed = (): Promise<void> => chain.then(() => {});
