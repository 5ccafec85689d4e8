import { bool, num, str, strs } from "../args.ts";
import { UsageError } from "../args.ts";
import { cliCommand, EXIT } from "../command.ts";
import { printJson } from "../format.ts";

export default cliCommand({
  name: "start",
  summary: "start a program in a new session",
  trailing: "[-- COMMAND ARGS...]",
  json: true,
  help: "Starts COMMAND (default: $SHELL) on a new PTY owned by the daemon and prints the session's name.\nThe daemon is started first if none answers.",
  flags: {
    name: { kind: "string", short: "n", value: "NAME", help: "the session's name (default: its id)" },
    cwd: { kind: "string", value: "DIR", help: "the folder it starts in (default: this one)" },
    env: { kind: "string", repeat: true, value: "K=V", help: "an environment variable for the program" },
    rows: { kind: "number", help: "the terminal's rows (default 24)" },
    cols: { kind: "number", help: "the terminal's columns (default 80)" },
    scrollback: { kind: "number", help: "lines kept above the screen (default 1000)" },
    term: { kind: "string", value: "TERM", help: "$TERM for the program (default xterm-256color)" },
    socket: {
      kind: "string",
      value: "PATH",
      help: "give the session a socket of its own (0600), where requests need not name it: native JSON-RPC, ralph's methods (get_status, write_pty, subscribe, stop) and interminai's; it goes away with the session",
    },
    "log-path": { kind: "string", value: "FILE", help: "also copy every output byte to FILE (truncated first)" },
    record: { kind: "string", value: "FILE.cast", help: "record output, input and resizes as asciicast v2 (asciinema plays it)" },
    replace: {
      kind: "boolean",
      help: "with --name: an ended session holding that name is removed first (a running one is not: stop it, or pick another name)",
    },
    "no-shell-integration": {
      kind: "boolean",
      help: "start bash, zsh or fish without termd's hooks (OSC 133 prompt and command marks, OSC 7 directory), which termd wait --command-done relies on",
    },
  },
  async run(a, ctx) {
    const command = a.rest.length > 0 ? a.rest : a.positional.length > 0 ? a.positional : undefined;
    if (a.rest.length > 0 && a.positional.length > 0) throw new UsageError(`unexpected ${a.positional[0]} before --`);
    const env: Record<string, string> = {};
    for (const kv of strs(a, "env")) {
      const eq = kv.indexOf("=");
      if (eq <= 0) throw new UsageError(`--env needs KEY=VALUE, not ${JSON.stringify(kv)}`);
      env[kv.slice(0, eq)] = kv.slice(eq + 1);
    }
    const client = await ctx.client();
    const name = str(a, "name");
    if (bool(a, "replace")) {
      if (name === undefined) throw new UsageError("--replace goes with --name");
      const holder = await client.call("session.info", { session: name }).catch(() => null);
      if (holder && holder.name === name && holder.state !== "running") await client.call("session.remove", { session: holder.id });
    }
    // node:path only when a path is given: every command pays for what it loads at start-up.
    const given = (["socket", "log-path", "record"] as const).filter((f) => str(a, f) !== undefined);
    const { resolve } = given.length > 0 ? await import("node:path") : { resolve: (p: string) => p };
    const path = (flag: (typeof given)[number]) => (given.includes(flag) ? resolve(str(a, flag)!) : undefined);
    const info = await client.call("session.create", {
      command,
      name: str(a, "name"),
      cwd: str(a, "cwd") ?? process.cwd(),
      env: Object.keys(env).length > 0 ? env : undefined,
      rows: num(a, "rows"),
      cols: num(a, "cols"),
      scrollback: num(a, "scrollback"),
      term: str(a, "term"),
      socket: path("socket"),
      log_path: path("log-path"),
      record: path("record"),
      shell_integration: bool(a, "no-shell-integration") ? false : undefined,
    });
    if (ctx.json) printJson(ctx, info);
    else ctx.out(info.name);
    return EXIT.OK;
  },
});
