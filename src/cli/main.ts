#!/usr/bin/env bun
// The termd executable: every subcommand, with the daemon started on demand; also interminai.
import { runDaemon } from "../daemon/main.ts";
import { connectOrStart } from "./autostart.ts";
import { daemonCommand } from "./commands/daemon.ts";
import { mcpCommand } from "./commands/mcp.ts";
import schemaCommand from "./commands/schema.ts";
import { CLIENT_COMMANDS } from "./commands/index.ts";
import { runCli } from "./run.ts";
import { interminaiCommand } from "./interminai/command.ts";
import { invokedAsInterminai, runInterminai } from "./interminai/main.ts";
import { endQuietlyOnClosedStdout } from "./closed-stdout.ts";

endQuietlyOnClosedStdout();

// Run under the name `interminai` (a symlink or a copy), it is interminai (src/cli/interminai/).
process.exitCode = invokedAsInterminai()
  ? await runInterminai(process.argv.slice(2))
  : await runCli(process.argv.slice(2), {
      commands: [...CLIENT_COMMANDS, daemonCommand(runDaemon), mcpCommand(connectOrStart), schemaCommand, interminaiCommand],
      connect: connectOrStart,
    });
