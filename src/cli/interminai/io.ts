// Writing for the interminai clients: whole strings at once, and a reader that went away (output
// piped into `head`) ends the client quietly instead of crashing it; a foreground `start` keeps
// serving.
let onClosed: () => void = () => process.exit(0);
let installed = false;

/** A client ends quietly when its reader goes away. */
export function ignoreClosedOutput(): void {
  if (installed) return;
  installed = true;
  for (const stream of [process.stdout, process.stderr]) stream.on("error", () => onClosed());
}

/** A foreground `start` serves on after its caller closed the pipes: write errors change nothing. */
export function keepServingOnClosedOutput(): void {
  ignoreClosedOutput();
  onClosed = () => {};
}

export function out(text: string): Promise<void> {
  return new Promise((resolve) => {
    if (text === "" || process.stdout.write(text)) resolve();
    else process.stdout.once("drain", () => resolve());
  });
}

export function err(text: string): void {
  process.stderr.write(text);
}
