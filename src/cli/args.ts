// A small flag parser: long flags with values or booleans, repeatable flags kept in the order
// given (send's --text/--keys/--paste depend on that order), `--` ending flags.

export type FlagKind = "string" | "boolean" | "number";

export interface FlagSpec {
  kind: FlagKind;
  short?: string;
  repeat?: boolean;
  /** The value's name in usage and help (NAME, MS); a number's is N and a string's VALUE unless given. */
  value?: string;
  /** What it does: the flag's line in --help. */
  help: string;
}

export interface Parsed {
  positional: string[];
  /** After `--`, untouched. */
  rest: string[];
  flags: Map<string, (string | number | boolean)[]>;
  /** Every flag with its value, in command-line order. */
  ordered: { name: string; value: string | number | boolean }[];
}

export class UsageError extends Error {}

// Character tests, not regular expressions, and plain loops, not flatMap: a process's first regular
// expression is compiled, and flatMap is parsed from source on first use (0.5 ms of every call).
const isLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isDigit = (c: number) => c >= 48 && c <= 57;
/** /^\d+$/: one or more ASCII digits. */
function isWholeNumber(s: string): boolean {
  if (s.length === 0) return false;
  for (let i = 0; i < s.length; i++) if (!isDigit(s.charCodeAt(i))) return false;
  return true;
}

export function parseArgs(argv: string[], spec: Record<string, FlagSpec>): Parsed {
  const out: Parsed = { positional: [], rest: [], flags: new Map(), ordered: [] };
  const byShort = new Map<string, string>();
  for (const [name, s] of Object.entries(spec)) if (s.short) byShort.set(s.short, name);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      out.rest = argv.slice(i + 1);
      break;
    }
    let name: string | undefined;
    let inline: string | undefined;
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      name = eq >= 0 ? arg.slice(2, eq) : arg.slice(2);
      inline = eq >= 0 ? arg.slice(eq + 1) : undefined;
    } else if (arg.length === 2 && arg[0] === "-" && isLetter(arg.charCodeAt(1))) {
      name = byShort.get(arg.slice(1));
      if (!name) throw new UsageError(`unknown option ${arg}`);
    } else {
      out.positional.push(arg);
      continue;
    }
    const s = spec[name];
    if (!s) throw new UsageError(`unknown option --${name}`);
    let value: string | number | boolean;
    if (s.kind === "boolean") {
      if (inline !== undefined) throw new UsageError(`--${name} takes no value`);
      value = true;
    } else {
      const raw = inline ?? argv[++i];
      if (raw === undefined) throw new UsageError(`--${name} needs a value`);
      if (s.kind === "number") {
        if (!isWholeNumber(raw)) throw new UsageError(`--${name} needs a whole number, not ${JSON.stringify(raw)}`);
        value = Number(raw);
      } else value = raw;
    }
    const list = out.flags.get(name) ?? [];
    if (list.length > 0 && !s.repeat) throw new UsageError(`--${name} given twice`);
    list.push(value);
    out.flags.set(name, list);
    out.ordered.push({ name, value });
  }
  return out;
}

export function str(p: Parsed, name: string): string | undefined {
  return p.flags.get(name)?.[0] as string | undefined;
}

export function num(p: Parsed, name: string): number | undefined {
  return p.flags.get(name)?.[0] as number | undefined;
}

export function bool(p: Parsed, name: string): boolean {
  return p.flags.has(name);
}

export function strs(p: Parsed, name: string): string[] {
  return (p.flags.get(name) ?? []) as string[];
}

/** "90s", "30m", "24h", "2d", "500ms", or plain seconds → milliseconds. */
export function parseDuration(text: string, flag: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(text.trim());
  if (!m) throw new UsageError(`--${flag} needs a duration like 90s, 30m, 24h or 2d, not ${JSON.stringify(text)}`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[(m[2] ?? "s") as "ms" | "s" | "m" | "h" | "d"];
  return Math.round(Number(m[1]) * unit);
}
