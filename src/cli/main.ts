#!/usr/bin/env bun
// The termd executable: every subcommand, with the daemon started on demand; also interminai and
// cp-console-server.
import { connectOrStart } from "./autostart.ts";
import { CLIENT_COMMANDS } from "./commands/index.ts";
import { runCli } from "./run.ts";
import { invokedAs } from "./invoked-as.ts";

// Start-up code runs once, but its loops (the protocol's schemas built) are hot enough to wake the
// JIT: its compilers' pages and work, ~3 MB of an idle daemon, for code that never runs again (the
// VT parser's table and the palette, whose loops were hotter still, are built on first use). The binary starts with this thread's JIT held back (scripts/compile.ts;
// worker threads start with the usual policy); a process still running after 5 s (a daemon,
// attach, mcp) gets the usual JIT back before its own hot paths matter.
setTimeout(() => Bun.unsafe.setJITPolicy(1), 5000).unref();

/** `termd daemon`: the daemon and its dialects are loaded only when this process is one, so every other command starts faster. */
const host = () => import("../server/host.ts");

// Run under the name `interminai` (a symlink or a copy), it is interminai (src/cli/interminai/);
// under `cp-console-server`, context-pilot's console server.
// Each personality is loaded only when it is the one run: a client command loads the client and
// its formatter, nothing more.
process.exitCode = (await invokedAs("interminai"))
  ? await (await import("./interminai/main.ts")).runInterminai(process.argv.slice(2))
  : (await invokedAs("cp-console-server"))
    ? await (await import("./console-server.ts")).runConsoleServer(process.argv.slice(2))
    : await runCli(process.argv.slice(2), {
        commands: {
          ...CLIENT_COMMANDS,
          daemon: async () => (await import("./commands/daemon.ts")).daemonCommand(host),
          mcp: async () => (await import("./commands/mcp.ts")).mcpCommand(connectOrStart),
          schema: async () => (await import("./commands/schema.ts")).default,
          interminai: async () => (await import("./interminai/command.ts")).interminaiCommand,
        },
        connect: connectOrStart,
      });
