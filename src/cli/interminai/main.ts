// The interminai personality: `interminai SUBCOMMAND …` (this binary run under that name) or
// `termd interminai SUBCOMMAND …`. Parses as interminai's clap parser does, runs the subcommand,
// and turns failures into interminai's messages and exit statuses (2 usage, 1 failure).
import { VERSION } from "../../protocol/version.ts";
import { Failure, helpText, parse, UsageError, type Subcommand } from "./args.ts";
import { debug } from "./debug.ts";
import { input } from "./input.ts";
import { ignoreClosedOutput, out, err } from "./io.ts";
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

export async function runInterminai(argv: string[]): Promise<number> {
  ignoreClosedOutput();
  const [name, ...rest] = argv;
  if (name === "--help" || name === "-h") return out(overview()).then(() => 0);
  if (name === "--version" || name === "-V") return out(`interminai ${VERSION} (termd)\n`).then(() => 0);
  if (name === undefined) {
    err(overview());
    return 2;
  }
  if (name === "help") {
    const sub = SUBCOMMANDS.find((s) => s.name === rest[0]);
    await out(sub ? helpText(sub) : overview());
    return 0;
  }
  const sub = SUBCOMMANDS.find((s) => s.name === name);
  if (!sub) {
    err(`error: unrecognized subcommand '${name}'\n\nUsage: interminai <COMMAND>\n\nFor more information, try '--help'.\n`);
    return 2;
  }
  try {
    const args = parse(sub, rest);
    if (args === null) {
      await out(helpText(sub));
      return 0;
    }
    return await sub.run(args);
  } catch (e) {
    if (e instanceof UsageError) {
      err(e.message);
      return 2;
    }
    if (e instanceof Failure) {
      err(e.message + "\n");
      return e.code;
    }
    err(`Error: ${(e as Error).message}\n`);
    return 1;
  }
}
