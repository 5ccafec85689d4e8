// The interminai personality: `interminai SUBCOMMAND …` (this binary run under that name) or
// `termd interminai SUBCOMMAND …`. Parses as interminai's clap parser does, runs the subcommand,
// and turns failures into interminai's messages and exit statuses (2 usage, 1 failure).
import { VERSION } from "../../protocol/version.ts";
import { UsageError } from "../args.ts";
import { flushed, writeErr, writeOut } from "../closed-stdout.ts";
import { Failure, helpText, parse, type Subcommand } from "./args.ts";
import { debug } from "./debug.ts";
import { input } from "./input.ts";
import { kill } from "./kill.ts";
import { output } from "./output.ts";
import { resize } from "./resize.ts";
import { start } from "./start.ts";
import { status } from "./status.ts";
import { stop } from "./stop.ts";
import { wait } from "./wait.ts";

export const SUBCOMMANDS: Subcommand[] = [start, input, output, stop, status, wait, kill, resize, debug];

function overview(): string {
  const w = Math.max(...SUBCOMMANDS.map((s) => s.name.length), 4);
  return [
    "🌀 an Interactive Terminal for AI (termd's interminai personality)",
    "",
    "Usage: interminai <COMMAND>",
    "",
    "Commands:",
    ...SUBCOMMANDS.map((s) => `  ${s.name.padEnd(w)}  ${s.about}`),
    `  ${"help".padEnd(w)}  Print this message or the help of the given subcommand(s)`,
    "",
    "Options:",
    "  -h, --help     Print help",
    "  -V, --version  Print version",
    "",
  ].join("\n");
}

/** Runs one interminai command line and returns its exit status once all it wrote is out. */
export async function runInterminai(argv: string[]): Promise<number> {
  try {
    return await run(argv);
  } finally {
    await flushed();
  }
}

async function run(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === "--help" || name === "-h") return writeOut(overview()).then(() => 0);
  if (name === "--version" || name === "-V") return writeOut(`interminai ${VERSION} (termd)\n`).then(() => 0);
  if (name === undefined) {
    void writeErr(overview());
    return 2;
  }
  if (name === "help") {
    const sub = SUBCOMMANDS.find((s) => s.name === rest[0]);
    await writeOut(sub ? helpText(sub) : overview());
    return 0;
  }
  const sub = SUBCOMMANDS.find((s) => s.name === name);
  if (!sub) {
    void writeErr(`error: unrecognized subcommand '${name}'\n\nUsage: interminai <COMMAND>\n\nFor more information, try '--help'.\n`);
    return 2;
  }
  try {
    const args = parse(sub, rest);
    if (args === null) {
      await writeOut(helpText(sub));
      return 0;
    }
    return await sub.run(args);
  } catch (e) {
    if (e instanceof UsageError) {
      void writeErr(e.message);
      return 2;
    }
    if (e instanceof Failure) {
      void writeErr(e.message + "\n");
      return e.code;
    }
    void writeErr(`Error: ${(e as Error).message}\n`);
    return 1;
  }
}
