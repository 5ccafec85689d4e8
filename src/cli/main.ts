#!/usr/bin/env bun
// The termd executable: every subcommand, with the daemon started on demand; also interminai and
// cp-console-server.
import { connectOrStart } from "./connect-or-start.ts";
import { CLIENT_COMMANDS } from "./commands/index.ts";
import { runCli } from "./run.ts";
import { invokedAs } from "./invoked-as.ts";

// Start-up code runs once, but its loops (the protocol's schemas built) are hot enough to wake the
// JIT: its compilers' pages and work, ~3 MB of an idle daemon, for code that never runs again (the
// VT parser's table and the palette, whose loops were hotter still, are built on first use). The
// binary starts with this thread's JIT held back (scripts/compile.ts; worker threads start with the
// usual policy). A process that serves on (a daemon, mcp, attach, logs, interminai, the console
// server) gets the usual JIT back after 5 s, before its own hot paths matter; a client command's
// call is over long before, and does not pay for the timer (0.3 ms of it here).
const jitBackLater = () => void setTimeout(() => Bun.unsafe.setJITPolicy(1), 5000).unref();
const servesOn =
  <T>(load: () => T) =>
  () => {
    jitBackLater();
    return load();
  };

/** `termd daemon`: the daemon and its dialects are loaded only when this process is one, so every other command starts faster. */
const host = () => import("../server/daemon-host.ts");

// Run under the name `interminai` (a symlink or a copy), it is interminai (src/cli/interminai/);
// under `cp-console-server`, context-pilot's console server.
// Each personality is loaded only when it is the one run: a client command loads the client and
// its formatter, nothing more.
process.exitCode = invokedAs("interminai")
  ? await servesOn(async () => (await import("./interminai/main.ts")).runInterminai(process.argv.slice(2)))()
  : invokedAs("cp-console-server")
    ? await servesOn(async () => (await import("./console-server.ts")).runConsoleServer(process.argv.slice(2)))()
    : await runCli(process.argv.slice(2), {
        commands: {
          ...CLIENT_COMMANDS,
          attach: servesOn(CLIENT_COMMANDS.attach!),
          logs: servesOn(CLIENT_COMMANDS.logs!),
          daemon: servesOn(async () => (await import("./commands/daemon.ts")).daemonCommand(host)),
          mcp: servesOn(async () => (await import("./commands/mcp.ts")).mcpCommand(connectOrStart)),
          schema: async () => (await import("./commands/schema.ts")).default,
          interminai: servesOn(async () => (await import("./interminai/command.ts")).interminaiCommand),
        },
        connect: connectOrStart,
      });
