#!/usr/bin/env bun
// The termd executable: every subcommand, with the daemon started on demand; also interminai and
// cp-console-server.
import { runDaemon } from "../daemon/main.ts";
import { connectOrStart } from "./autostart.ts";
import { daemonCommand } from "./commands/daemon.ts";
import { mcpCommand } from "./commands/mcp.ts";
import schemaCommand from "./commands/schema.ts";
import { CLIENT_COMMANDS } from "./commands/index.ts";
import { runCli } from "./run.ts";
import { interminaiCommand } from "./interminai/command.ts";
import { runInterminai } from "./interminai/main.ts";
import { invokedAs } from "./invoked-as.ts";
import { runConsoleServer } from "./console-server.ts";
import { endQuietlyOnClosedStdout } from "./closed-stdout.ts";
import { DIALECTS } from "../dialects/index.ts";

endQuietlyOnClosedStdout();

// Run under the name `interminai` (a symlink or a copy), it is interminai (src/cli/interminai/);
// under `cp-console-server`, context-pilot's console server.
process.exitCode = invokedAs("interminai")
  ? await runInterminai(process.argv.slice(2))
  : invokedAs("cp-console-server")
    ? await runConsoleServer(process.argv.slice(2))
    : await runCli(process.argv.slice(2), {
        commands: [...CLIENT_COMMANDS, daemonCommand((opts) => runDaemon({ ...opts, dialects: DIALECTS })), mcpCommand(connectOrStart), schemaCommand, interminaiCommand],
      connect: connectOrStart,
    });
