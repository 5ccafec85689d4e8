// termd show-trace: replays what termd/testing kept of a test (test-results/TEST/), or any
// asciicast v2 file, on this terminal as it happened: each recording's output with its timing.
// It needs no daemon: the recording is the file.
import { num, str, UsageError } from "../args.ts";
import { cliCommand, EXIT } from "../command.ts";
import { noMoreArgs, writeOut } from "./shared.ts";

/** The recordings at `path`: the file itself, or a folder's `.cast` files by name. */
function recordings(path: string): string[] {
  const { readdirSync, statSync } = process.getBuiltinModule("node:fs");
  const { join } = process.getBuiltinModule("node:path");
  let dir: boolean;
  try {
    dir = statSync(path).isDirectory();
  } catch {
    throw new UsageError(`${path}: no such file or folder`);
  }
  if (!dir) return [path];
  const casts = readdirSync(path)
    .filter((f) => f.endsWith(".cast"))
    .sort();
  if (casts.length === 0) throw new UsageError(`${path} holds no recording (.cast): was the test's trace kept?`);
  return casts.map((f) => join(path, f));
}

export default cliCommand({
  name: "show-trace",
  summary: "replay a recording termd/testing kept of a test (or any asciicast file)",
  args: "DIR|FILE.cast",
  help: [
    "Replays each recording in DIR (a test's folder in test-results/, as termd/testing keeps it)",
    "or the one FILE.cast: the program's output, written to this terminal with the timing it had.",
    "A line on stderr names each recording and its size (the terminal should be at least as big);",
    "input and resizes in the recording are not replayed.",
  ].join("\n"),
  flags: {
    // A string: a speed is any number above 0 (0.5 plays at half speed), not a whole one.
    speed: { kind: "string", value: "N", help: "play N times as fast, 0.5 at half speed (default 1)" },
    "max-idle": { kind: "number", value: "MS", help: "shorten every pause to at most MS (default 2000; 0 plays it all at once)" },
  },
  async run(a, ctx) {
    const path = a.positional[0];
    if (path === undefined) throw new UsageError("name a test's folder (test-results/TEST) or a .cast file");
    noMoreArgs(a, 1);
    const speed = Number(str(a, "speed") ?? 1);
    const maxIdle = num(a, "max-idle") ?? 2000;
    if (!(speed > 0)) throw new UsageError("--speed is a number above 0");
    if (!(maxIdle >= 0)) throw new UsageError("--max-idle is a number of ms, 0 or more");
    const { readFileSync } = process.getBuiltinModule("node:fs");
    const { basename } = process.getBuiltinModule("node:path");
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    for (const file of recordings(path)) {
      const [head, ...events] = readFileSync(file, "utf8").split("\n").filter(Boolean);
      let header: { version?: number; width?: number; height?: number };
      try {
        header = JSON.parse(head ?? "");
      } catch {
        header = {};
      }
      if (header.version !== 2) throw new UsageError(`${file} is not an asciicast v2 recording`);
      ctx.err(`── ${basename(file)}: ${header.height}x${header.width} ──`);
      let at = 0;
      for (const line of events) {
        const [t, code, data] = JSON.parse(line) as [number, string, string];
        if (code !== "o") continue;
        const pause = Math.min(((t - at) * 1000) / speed, maxIdle);
        at = t;
        if (pause > 0) await sleep(pause);
        await writeOut(data);
      }
      await writeOut("\x1b[0m\r\n");
    }
    return EXIT.OK;
  },
});
