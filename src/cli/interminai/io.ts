// Writing for the interminai clients: whole strings at once, and a reader that went away (output
// piped into `head`) ends the client quietly instead of crashing it.
let quiet = false;

export function ignoreClosedOutput(): void {
  if (quiet) return;
  quiet = true;
  for (const stream of [process.stdout, process.stderr]) stream.on("error", () => process.exit(0));
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
