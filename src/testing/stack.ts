// Errors that point at the test's line: bun shows the source around an error's first stack frame,
// and a failure inside this library would otherwise show the library's own code (or, after an
// await, lose the test's frames entirely). So the stack taken when the test called in is kept,
// and a failure's stack is rewritten to it, without this library's frames. The same frames say
// where a test file called the library (node.ts gives node:test that place as the test's location).
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
// In the npm package the code the entry points share sits in lib/chunks/ and the entry points in
// lib/client/ and lib/testing/ (scripts/pack.ts); from source this is src/testing/.
const LIBRARY_DIRS = [`${HERE}/`, `${dirname(HERE)}/client/`, `${dirname(HERE)}/chunks/`, `${dirname(HERE)}/testing/`];

/** The frames of `site`'s stack outside this library: the caller's, outermost last. */
function callerFrames(site: Error): string[] {
  return (site.stack ?? "").split("\n").filter((l) => /^\s+at /.test(l) && !LIBRARY_DIRS.some((d) => l.includes(d)));
}

/** `err`'s stack, from `site` (an Error made when the test called) on, minus the library's frames. */
export function pointAtCaller(err: unknown, site: Error): void {
  if (!(err instanceof Error)) return;
  const frames = callerFrames(site);
  if (frames.length === 0) return;
  Object.defineProperty(err, "stack", { value: `${err.name}: ${err.message}\n${frames.join("\n")}`, configurable: true, writable: true });
}

/**
 * Where the code that called into the library stands, as its stack frame names it (a path or a
 * file: URL), 1-based. Frames with no place (bun's `at unknown` for a Proxy's trap) are passed over.
 */
export function callSite(site: Error): { file: string; line: number; column: number } | undefined {
  for (const frame of callerFrames(site)) {
    const m = /\(?([^\s()]+):(\d+):(\d+)\)?$/.exec(frame);
    if (m) return { file: m[1]!, line: Number(m[2]), column: Number(m[3]) };
  }
  return undefined;
}
