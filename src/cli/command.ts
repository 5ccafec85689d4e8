// What a CLI subcommand is: a declarative entry with its flags, help text and run function.
// Subcommands return an exit code and report errors by throwing; main.ts maps errors to codes.
import type { Client } from "../client/client.ts";
import type { FlagSpec, Parsed } from "./args.ts";

/**
 * DAEMON_RUNNING: `termd daemon` found another live daemon holding its socket (a start race an
 * autostarting client lost: the winner answers there). STATE_DIR_HELD: one on another socket holds
 * its state dir, which no waiting frees: the autostart gives up at once with the daemon's message.
 */
export const EXIT = { OK: 0, FAILURE: 1, USAGE: 2, TIMEOUT: 3, NOT_FOUND: 4, DAEMON_RUNNING: 5, STATE_DIR_HELD: 6 } as const;

export interface CliContext {
  /** The daemon's socket, or a remote daemon's URL (--url, $TERMD_URL). */
  socketPath: string;
  json: boolean;
  /** The daemon connection, started on first use (autostarting the daemon where possible). */
  client(): Promise<Client>;
  out(text: string): void;
  err(text: string): void;
}

export interface CliCommand {
  name: string;
  summary: string;
  /** What it does: --help's text between the usage line and the flags. */
  help: string;
  /** The arguments before the flags in the usage line (SESSION, SESSION ROWS COLS). */
  args?: string;
  /** What the usage line ends with, after the flags: `[-- COMMAND ARGS...]`. */
  trailing?: string;
  /** It prints JSON with --json. */
  json?: boolean;
  /** Its flags: the parser's table, and the usage line and --help are drawn from it. */
  flags: Record<string, FlagSpec>;
  run(args: Parsed, ctx: CliContext): Promise<number>;
  /** A command that parses its own arguments (a personality, such as interminai): gets them untouched. */
  passthrough?: (argv: string[]) => Promise<number>;
}

export function cliCommand(c: CliCommand): CliCommand {
  return c;
}

/**
 * Commands by name, in --help's order, each loaded when it runs: a command's process loads no
 * other command's code (the daemon's idle memory carried every client command's, ~1 MB).
 */
export type CommandTable = Record<string, () => CliCommand | Promise<CliCommand>>;

/** Every command of a table, loaded: what --help lists. */
export function loadCommands(table: CommandTable): Promise<CliCommand[]> {
  return Promise.all(Object.values(table).map((load) => load()));
}
