// A reader that stops reading (`termd logs S | head -1`) closes the pipe under us: like any Unix
// tool, the command then ends at once and quietly, instead of a stack trace and a process that
// waits forever for the pipe to drain.

function quit(err: NodeJS.ErrnoException): never {
  if (err.code === "EPIPE") process.exit(0);
  throw err;
}

/** Makes a closed stdout end the process quietly; call once, first thing. */
export function endQuietlyOnClosedStdout(): void {
  process.stdout.on("error", quit);
}

/** Writes to stdout and resolves once it may take more (a slow terminal or pipe holds us back). */
export function writeOut(bytes: Uint8Array | string): Promise<void> {
  return new Promise((resolve) => {
    try {
      if (process.stdout.write(bytes)) resolve();
      else process.stdout.once("drain", resolve);
    } catch (err) {
      quit(err as NodeJS.ErrnoException);
    }
  });
}
