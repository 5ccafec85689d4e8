// interminai's argument parsing, as its clap parser behaves: GNU long options in any order,
// `--name value` or `--name=value` (values may start with "-": `--from -5`), a trailing program
// after `--` for `start`, and clap's messages on stderr with exit status 2 for usage errors.
// Departure: `start` also takes the program without `--` (clap insists on it).
import { UsageError } from "../args.ts";

export interface Opt {
  long: string;
  short?: string;
  /** The value's name in help and errors (SOCKET); absent for a flag. */
  value?: string;
  help: string;
  required?: boolean;
  /** Allowed values, when there is a fixed set. */
  possible?: string[];
}

export interface Subcommand {
  name: string;
  about: string;
  opts: Opt[];
  /** The program and its arguments (start's `-- CMD [ARG...]`). */
  trailing?: { name: string; help: string };
  run(args: Args): Promise<number>;
}

export interface Args {
  values: Map<string, string>;
  flags: Set<string>;
  trailing: string[];
}

/** A failure after parsing: printed to stderr as is, exit status `code` (1, as anyhow's main). */
export class Failure extends Error {
  constructor(
    message: string,
    readonly code = 1,
  ) {
    super(message);
  }
}

const HELP: Opt = { long: "help", short: "h", help: "Print help" };

const optName = (o: Opt) => (o.value ? `--${o.long} <${o.value}>` : `--${o.long}`);

export function usageLine(sub: Subcommand): string {
  const required = sub.opts.filter((o) => o.required).map(optName);
  const hasOptional = sub.opts.some((o) => !o.required);
  const parts = [`interminai ${sub.name}`, ...(hasOptional ? ["[OPTIONS]"] : []), ...required];
  if (sub.trailing) parts.push(`-- <${sub.trailing.name}>...`);
  return `Usage: ${parts.join(" ")}`;
}

function usageError(sub: Subcommand, message: string): UsageError {
  return new UsageError(`error: ${message}\n\n${usageLine(sub)}\n\nFor more information, try '--help'.\n`);
}

export function helpText(sub: Subcommand): string {
  const opts = [...sub.opts, HELP];
  const left = opts.map((o) => `${o.short ? `-${o.short}, ` : "    "}${optName(o)}`);
  const width = Math.max(...left.map((l) => l.length));
  const lines = [sub.about, "", usageLine(sub), ""];
  if (sub.trailing) lines.push("Arguments:", `  <${sub.trailing.name}>...  ${sub.trailing.help}`, "");
  lines.push("Options:");
  opts.forEach((o, i) => {
    const possible = o.possible ? ` [possible values: ${o.possible.join(", ")}]` : "";
    lines.push(`  ${left[i]!.padEnd(width)}  ${o.help}${possible}`);
  });
  return lines.join("\n") + "\n";
}

/** Parses one subcommand's arguments; throws UsageError, or returns null when --help was asked. */
export function parse(sub: Subcommand, argv: string[]): Args | null {
  const out: Args = { values: new Map(), flags: new Set(), trailing: [] };
  const byLong = new Map(sub.opts.map((o) => [o.long, o]));
  const byShort = new Map(sub.opts.filter((o) => o.short).map((o) => [o.short!, o]));
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      out.trailing = argv.slice(i + 1);
      break;
    }
    if (arg === "--help" || arg === "-h") return null;
    let opt: Opt | undefined;
    let inline: string | undefined;
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      opt = byLong.get(eq >= 0 ? arg.slice(2, eq) : arg.slice(2));
      if (eq >= 0) inline = arg.slice(eq + 1);
    } else if (/^-[A-Za-z]$/.test(arg)) {
      opt = byShort.get(arg.slice(1));
    } else if (sub.trailing) {
      out.trailing = argv.slice(i);
      break;
    }
    if (!opt) throw usageError(sub, `unexpected argument '${arg}' found`);
    if (!opt.value) {
      if (inline !== undefined) throw usageError(sub, `unexpected value '${inline}' for '${optName(opt)}' found; no more were expected`);
      out.flags.add(opt.long);
      continue;
    }
    const value = inline ?? argv[++i];
    if (value === undefined) throw usageError(sub, `a value is required for '${optName(opt)}' but none was supplied`);
    if (out.values.has(opt.long)) throw usageError(sub, `the argument '${optName(opt)}' cannot be used multiple times`);
    if (opt.possible && !opt.possible.includes(value)) {
      throw new UsageError(
        `error: invalid value '${value}' for '${optName(opt)}'\n  [possible values: ${opt.possible.join(", ")}]\n\nFor more information, try '--help'.\n`,
      );
    }
    out.values.set(opt.long, value);
  }
  const missing = sub.opts.filter((o) => o.required && !out.values.has(o.long)).map(optName);
  if (sub.trailing && out.trailing.length === 0) missing.push(`<${sub.trailing.name}>...`);
  if (missing.length > 0) {
    throw usageError(sub, `the following required arguments were not provided:\n${missing.map((m) => `  ${m}`).join("\n")}`);
  }
  return out;
}

/** `COLSxROWS`, columns first; interminai's own message when it is not one. */
export function parseSize(text: string): { cols: number; rows: number } {
  const m = /^(\d{1,5})x(\d{1,5})$/.exec(text);
  const cols = m ? Number(m[1]) : 0;
  const rows = m ? Number(m[2]) : 0;
  if (!m || cols < 1 || rows < 1 || cols > 1000 || rows > 1000) throw new Failure("Error: Invalid size format, expected WxH like 80x24");
  return { cols, rows };
}

export const SOCKET: Opt = { long: "socket", value: "SOCKET", help: "Unix socket path (required)", required: true };
