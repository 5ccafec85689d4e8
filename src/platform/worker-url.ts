// Where a worker's entry module is, from source and in the compiled binary. scripts/compile.ts
// gives each worker as a second entrypoint of the build; inside the binary every module lives
// under /$bunfs/root/ by its path below src/, and import.meta.url names a file there (the binary
// or one of its chunks), not this one's path in the tree.
const COMPILED = import.meta.url.startsWith("file:///$bunfs/");

/** The URL to start a worker at: `entry` is the module's path below src/ (e.g. "pty/pty-worker.ts"), listed in scripts/compile.ts. */
export function workerUrl(entry: string): URL {
  return new URL(COMPILED ? `./${entry}` : `../${entry}`, import.meta.url);
}
