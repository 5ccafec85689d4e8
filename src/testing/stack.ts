// Errors that point at the test's line: bun shows the source around an error's first stack frame,
// and a failure inside this library would otherwise show the library's own code (or, after an
// await, lose the test's frames entirely). So the stack taken when the test called in is kept,
// and a failure's stack is rewritten to it, without this library's frames.
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
// In the npm package the code both entry points share sits in lib/chunks/ (scripts/pack.ts).
const LIBRARY_DIRS = [`${HERE}/`, `${dirname(HERE)}/client/`, `${dirname(HERE)}/chunks/`];

/** `err`'s stack, from `site` (an Error made when the test called) on, minus the library's frames. */
export function pointAtCaller(err: unknown, site: Error): void {
  if (!(err instanceof Error) || !site.stack) return;
  const frames = site.stack.split("\n").filter((l) => /^\s+at /.test(l) && !LIBRARY_DIRS.some((d) => l.includes(d)));
  if (frames.length === 0) return;
  Object.defineProperty(err, "stack", { value: `${err.name}: ${err.message}\n${frames.join("\n")}`, configurable: true, writable: true });
}
