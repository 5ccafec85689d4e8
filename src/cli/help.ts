// A command's usage line and --help, drawn from its flag table: a flag is written once, where the
// parser reads it.
import type { FlagSpec } from "./args.ts";
import type { CliCommand } from "./command.ts";
import { VERSION } from "../protocol/version.ts";

/** Help is wrapped to this width, as a terminal of 100 columns shows it. */
const WIDTH = 100;

const valueText = (s: FlagSpec) => (s.kind === "boolean" ? "" : ` ${s.value ?? (s.kind === "number" ? "N" : "VALUE")}`);

/** `termd start [--name NAME] [--env K=V]... [--json] [-- COMMAND ARGS...]` */
export function usageOf(cmd: CliCommand): string {
  const flags = Object.entries(cmd.flags).map(([name, s]) => `[--${name}${valueText(s)}]${s.repeat ? "..." : ""}`);
  return ["termd", cmd.name, cmd.args, ...flags, cmd.json ? "[--json]" : undefined, cmd.trailing]
    .filter((p) => p !== undefined && p !== "")
    .join(" ");
}

/** Words of `text` in lines at most `width` long (a longer word stands alone). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  return line === "" ? lines : [...lines, line];
}

/** One line a flag (`-o, --output FILE  what it does`), the help wrapped under itself. */
export function flagLines(flags: Record<string, FlagSpec>): string[] {
  const names = Object.entries(flags).map(([name, s]) => [`${s.short ? `-${s.short}, ` : ""}--${name}${valueText(s)}`, s.help] as const);
  const w = Math.min(Math.max(0, ...names.map(([n]) => n.length)), 24);
  const indent = " ".repeat(2 + w + 2);
  return names.flatMap(([name, help]) => {
    const text = wrap(help, WIDTH - indent.length);
    // A name longer than the column has its help start on the next line.
    if (name.length > w) return [`  ${name}`, ...text.map((l) => indent + l)];
    return text.map((l, i) => (i === 0 ? `  ${name.padEnd(w)}  ${l}` : indent + l));
  });
}

/** `termd COMMAND --help`: the usage line, what it does, and its flags. */
export function helpOf(cmd: CliCommand): string {
  const flags = flagLines(cmd.flags);
  return [`usage: ${usageOf(cmd)}`, "", cmd.help, ...(flags.length > 0 ? ["", ...flags] : [])].join("\n");
}

/** The global flags --help lists under every command: the ones that reach the daemon, --json. */
export function globalHelp(global: Record<string, FlagSpec>, ownSocket: boolean): string {
  const { socket, help, ...rest } = global;
  return ["Every command also takes:", ...flagLines(ownSocket ? rest : { socket: socket!, ...rest })].join("\n");
}

/** `termd --help`: every command with its summary, then the global flags. */
export function overview(commands: CliCommand[], global: Record<string, FlagSpec>): string {
  const w = Math.max(...commands.map((c) => c.name.length));
  return [
    `termd ${VERSION}: persistent terminal sessions driven over a Unix socket`,
    "",
    "usage: termd COMMAND [ARGS]",
    "",
    ...commands.map((c) => `  ${c.name.padEnd(w)}  ${c.summary}`),
    "",
    "termd COMMAND --help shows a command's options. termd --version [--json] prints which build this is.",
    "Exit codes: 0 ok, 1 failure, 2 usage, 3 timeout, 4 session not found, 5 (termd daemon) another daemon already runs there.",
    "",
    globalHelp(global, false),
  ].join("\n");
}
