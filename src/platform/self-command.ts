// How to run this very program again: the compiled binary alone, or the runtime plus the script.
// For the CLI's autostart (a daemon of its own build) and for a daemon replacing itself with its
// own build (daemon/handover.ts).
export function selfCommand(): string[] {
  const script = process.argv[1];
  const compiled = !script || script.startsWith("/$bunfs/") || script === process.execPath;
  return compiled ? [process.execPath] : [process.execPath, script];
}
