// One binary, several personalities: which one is chosen by the name it was run by.

const basename = (path: string): string => path.slice(path.lastIndexOf("/") + 1);

/**
 * Was this program started under `name` (interminai, cp-console-server)? A compiled binary sees
 * the name it was run by in argv0 (a symlink's or a copy's). Run as a script, Bun resolves a
 * symlink in argv[1], so the name as typed comes from /proc/self/cmdline (Linux). Synchronous: a
 * command-line call asks twice before anything else, and each await is a turn of its own.
 */
export function invokedAs(name: string): boolean {
  if (basename(process.argv0) === name) return true;
  const compiled = process.argv[1]?.startsWith("/$bunfs/") ?? true;
  if (compiled || process.platform !== "linux") return false;
  try {
    const script = process.getBuiltinModule("node:fs").readFileSync("/proc/self/cmdline", "utf8").split("\0")[1] ?? "";
    return basename(script) === name;
  } catch {
    return false;
  }
}
