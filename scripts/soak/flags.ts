// The soak's flags (the usage is main.ts's opening comment).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";

export const SECTIONS = ["fuzz", "clients", "orphans", "flood", "idle", "races"];

export interface Options {
  quick: boolean;
  seed: number;
  messages: number;
  clients: number;
  requests: number;
  floodMb: number;
  idleSessions: number;
  raceSeconds: number;
  only: Set<string>;
}

export function parseFlags(argv: string[]): Options {
  const { values: v } = parseArgs({
    args: argv,
    strict: true,
    options: {
      quick: { type: "boolean" },
      seed: { type: "string" },
      messages: { type: "string" },
      clients: { type: "string" },
      requests: { type: "string" },
      "flood-mb": { type: "string" },
      "idle-sessions": { type: "string" },
      "race-seconds": { type: "string" },
      only: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (v.help) {
    // The usage is main.ts's opening comment.
    const src = readFileSync(join(import.meta.dir, "main.ts"), "utf8").split("\n");
    console.log(
      src
        .slice(
          0,
          src.findIndex((l) => !l.startsWith("//")),
        )
        .map((l) => l.replace(/^\/\/ ?/, ""))
        .join("\n"),
    );
    process.exit(0);
  }
  const int = (flag: string, given: string | undefined, dflt: number, min = 1): number => {
    if (given === undefined) return dflt;
    const n = Number(given);
    if (!Number.isInteger(n) || n < min) throw new Error(`--${flag} needs a whole number of at least ${min}, got ${given}`);
    return n;
  };
  const quick = v.quick === true;
  const only = v.only === undefined ? SECTIONS : v.only.split(",").filter(Boolean);
  for (const s of only) if (!SECTIONS.includes(s)) throw new Error(`--only: unknown section ${s} (${SECTIONS.join(", ")})`);
  return {
    quick,
    seed: int("seed", v.seed, (Date.now() ^ (process.pid << 16)) >>> 0, 0) >>> 0,
    messages: int("messages", v.messages, quick ? 20_000 : 200_000),
    clients: int("clients", v.clients, quick ? 20 : 100),
    requests: int("requests", v.requests, quick ? 200 : 1000),
    floodMb: int("flood-mb", v["flood-mb"], quick ? 20 : 200),
    idleSessions: int("idle-sessions", v["idle-sessions"], quick ? 100 : 1000),
    raceSeconds: int("race-seconds", v["race-seconds"], quick ? 20 : 180),
    only: new Set(only),
  };
}
