// The command-line front: global flags, dispatch to a subcommand, help, and the one place where
// errors become messages and exit codes (0 ok, 1 failure, 2 usage, 3 timeout, 4 not found, 5 another daemon
// already runs).
import { connect, defaultTarget, type Client } from "../client/client.ts";
import { RpcError } from "../protocol/errors.ts";
import { isDaemonUrl } from "../client/daemon-url.ts";
import { BUILD, describeBuild } from "../protocol/version.ts";
import { parseArgs, UsageError, type FlagSpec } from "./args.ts";
import { sayIfOtherBuild } from "./other-build.ts";
import { EXIT, loadCommands, type CliCommand, type CliContext, type CommandTable } from "./command.ts";
import { flushed, writeErr, writeOut } from "./closed-stdout.ts";

/** Help and the wording of a bad flag's error are loaded when a command line needs them, not before every call. */
const help = () => import("./help.ts");

const GLOBAL_FLAGS: Record<string, FlagSpec> = {
  socket: { kind: "string", value: "PATH", help: "the daemon's socket (default: $TERMD_SOCKET or the per-user socket)" },
  url: {
    kind: "string",
    value: "http(s)://HOST:PORT",
    help: "a remote daemon (termd daemon --http), with $TERMD_TOKEN (default: $TERMD_URL)",
  },
  // `start --socket` is the session's: this name is free in every command.
  "daemon-socket": {
    kind: "string",
    value: "PATH",
    help: "the daemon's socket, as --socket (which termd start takes for the session's own)",
  },
  json: { kind: "boolean", help: "print the result as JSON, where the usage line offers it" },
  help: { kind: "boolean", short: "h", help: "print this help" },
};

export interface CliOptions {
  commands: CommandTable;
  /** How to reach the daemon; the full binary starts one if none answers. */
  connect?: (socketPath: string) => Promise<Client>;
  /** Where the command's lines go (default: this process's stdout and stderr); a test runs a command line in-process with its own. */
  io?: { out(text: string): unknown; err(text: string): unknown };
}

const EXIT_OF: Partial<Record<string, number>> = {
  SESSION_NOT_FOUND: EXIT.NOT_FOUND,
  TIMEOUT: EXIT.TIMEOUT,
  INVALID_PARAMS: EXIT.USAGE,
};

type Say = (s: string) => void;

/** Runs one command line and returns its exit code once all it wrote is out. */
export async function runCli(argv: string[], opts: CliOptions): Promise<number> {
  try {
    return await runCommand(argv, opts);
  } finally {
    await flushed();
  }
}

async function runCommand(argv: string[], opts: CliOptions): Promise<number> {
  const line = (s: string) => (s.endsWith("\n") ? s : s + "\n");
  /**
   * The build check, sent with the command's first call rather than a round trip before it. What
   * the command prints waits for it, so that its note comes first.
   */
  let checked: Promise<void> | undefined;
  const after = (write: () => unknown) => void (checked ? checked.then(write) : write());
  const io = opts.io ?? { out: writeOut, err: writeErr };
  const out = (s: string) => after(() => io.out(line(s)));
  const err = (s: string) => after(() => io.err(line(s)));
  const [name, ...rest] = argv;
  if (
    name === undefined ||
    name === "--help" ||
    name === "-h" ||
    name === "help" ||
    name === "--version" ||
    name === "-V" ||
    name === "version"
  )
    return builtIn(name, rest, opts, out, err);
  // `in`, not Object.hasOwn (a process's first call of it costs 0.3 ms here); a name every object
  // has (toString, __proto__) is no command.
  const load = name in opts.commands && !(name in Object.prototype) ? opts.commands[name] : undefined;
  if (!load) {
    err(`termd: unknown command ${JSON.stringify(name)}; see termd --help`);
    return EXIT.USAGE;
  }
  const cmd = await load();
  if (cmd.passthrough) return cmd.passthrough(rest);
  let client: Client | undefined;
  try {
    const args = parseArgs(rest, { ...GLOBAL_FLAGS, ...cmd.flags });
    // A command with a --socket of its own (start: the session's socket) reaches the daemon
    // through --daemon-socket or $TERMD_SOCKET.
    const ownSocket = "socket" in cmd.flags;
    if (args.flags.has("help")) {
      const { helpOf, globalHelp } = await help();
      out(`${helpOf(cmd)}\n\n${globalHelp(GLOBAL_FLAGS, ownSocket)}`);
      return EXIT.OK;
    }
    const flag = (f: string) => args.flags.get(f)?.[0] as string | undefined;
    const url = flag("url");
    if (url !== undefined && !isDaemonUrl(url))
      throw new UsageError(`--url needs http://HOST:PORT or https://HOST:PORT, not ${JSON.stringify(url)}`);
    const socketPath = url ?? flag("daemon-socket") ?? (ownSocket ? undefined : flag("socket")) ?? defaultTarget();
    const ctx: CliContext = {
      socketPath,
      json: args.flags.has("json"),
      client: async () => {
        if (!client) {
          client = await (opts.connect ?? connect)(socketPath);
          checked = sayIfOtherBuild(client, socketPath, (s) => void io.err(line(s)));
        }
        return client;
      },
      out,
      err,
    };
    return await cmd.run(args, ctx);
  } catch (e) {
    return await failed(e, name, cmd, err);
  } finally {
    await checked;
    client?.close();
  }
}

// What a call rarely does is in functions of its own: a process compiles a function's bytecode
// whole the first time it runs it, untaken branches too (0.4 ms for 300 lines of them here).

/** `termd`, `termd --help`, `termd --version [--json]`: nothing to load, no daemon. */
async function builtIn(name: string | undefined, rest: string[], opts: CliOptions, out: Say, err: Say): Promise<number> {
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    out((await help()).overview(await loadCommands(opts.commands), GLOBAL_FLAGS));
    return name === undefined ? EXIT.USAGE : EXIT.OK;
  }
  const extra = rest.filter((a) => a !== "--json");
  if (extra.length > 0) {
    err(`termd --version: unexpected argument ${extra[0]} (only --json)`);
    return EXIT.USAGE;
  }
  out(rest.includes("--json") ? JSON.stringify(BUILD) : describeBuild(BUILD));
  return EXIT.OK;
}

/** A command's error as its message and exit code. */
async function failed(e: unknown, name: string, cmd: CliCommand, err: Say): Promise<number> {
  if (e instanceof UsageError) {
    err(`termd ${name}: ${e.message}\nusage: ${(await help()).usageOf(cmd)}`);
    return EXIT.USAGE;
  }
  if (e instanceof RpcError) {
    const worded = e.name === "INVALID_PARAMS" ? (await import("./param-errors.ts")).inFlagTerms(e.details) : null;
    err(`termd ${name}: ${worded ?? e.message}`);
    return EXIT_OF[e.name] ?? EXIT.FAILURE;
  }
  const code = (e as NodeJS.ErrnoException).code;
  if (code === "ENOENT" || code === "ECONNREFUSED") err(`termd ${name}: no termd daemon answers (${(e as Error).message})`);
  else err(`termd ${name}: ${(e as Error).message}`);
  return EXIT.FAILURE;
}
