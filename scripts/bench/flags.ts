// The bench's flags (the usage is main.ts's opening comment).
import { readFileSync } from "node:fs";
import { join } from "node:path";

export interface Options {
  sizeMb: number;
  runs: number;
  keys: number;
  tmuxKeys: number;
  sessions: number;
  redrawSeconds: number;
  idleSessions: number;
  cliRuns: number;
  many: number[];
  only: Set<string>;
  tmux: boolean;
}

const SECTIONS = [
  "throughput",
  "cpu",
  "keys",
  "memory",
  "parser",
  "isolation",
  "redraw",
  "waits",
  "idle1000",
  "cli",
  "many",
  "lines",
  "fairness",
  "input",
  "half-close",
  "subscribers",
  "handover",
];

/** The options that are a number. */
type NumberOption = { [K in keyof Options]: Options[K] extends number ? K : never }[keyof Options];

/** The flags that take a number: the option each sets, and whether it is a whole number. */
const NUMBER_FLAGS: Record<string, [NumberOption, boolean]> = {
  "--size": ["sizeMb", false],
  "--runs": ["runs", true],
  "--keys": ["keys", true],
  "--tmux-keys": ["tmuxKeys", true],
  "--sessions": ["sessions", true],
  "--redraw-seconds": ["redrawSeconds", false],
  "--idle-sessions": ["idleSessions", true],
  "--cli-runs": ["cliRuns", true],
};

export function parseFlags(argv: string[]): Options {
  const quick = argv.includes("--quick");
  const o: Options = {
    sizeMb: quick ? 5 : 50,
    runs: quick ? 1 : 3,
    keys: quick ? 50 : 300,
    tmuxKeys: quick ? 20 : 100,
    sessions: quick ? 20 : 100,
    redrawSeconds: quick ? 10 : 60,
    idleSessions: quick ? 50 : 1000,
    cliRuns: quick ? 10 : 30,
    many: quick ? [200] : [1000, 10_000],
    only: new Set(SECTIONS),
    tmux: true,
  };
  const intFlag = (name: string, v: string | undefined): number => {
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} needs a positive number, got ${v ?? "nothing"}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const number = NUMBER_FLAGS[a];
    if (number) {
      const [key, whole] = number;
      const n = intFlag(a, argv[++i]);
      o[key] = whole ? Math.round(n) : n;
      continue;
    }
    switch (a) {
      case "--quick":
        break;
      case "--many":
        o.many = (argv[++i] ?? "").split(",").map((x) => Math.round(intFlag(a, x)));
        break;
      case "--only": {
        const list = (argv[++i] ?? "").split(",").filter(Boolean);
        for (const s of list) if (!SECTIONS.includes(s)) throw new Error(`--only: unknown section ${s}`);
        o.only = new Set(list);
        break;
      }
      case "--no-tmux":
        o.tmux = false;
        break;
      case "--help":
      case "-h": {
        // The usage is main.ts's opening comment.
        const src = readFileSync(join(import.meta.dir, "main.ts"), "utf8").split("\n");
        const end = src.findIndex((l) => !l.startsWith("//"));
        console.log(
          src
            .slice(0, end)
            .map((l) => l.replace(/^\/\/ ?/, ""))
            .join("\n"),
        );
        return process.exit(0);
      }
      default:
        throw new Error(`unknown flag ${a} (try --help)`);
    }
  }
  return o;
}
