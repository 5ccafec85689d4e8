#!/usr/bin/env bun
// The termd executable: every subcommand, with the daemon started on demand.
import { runDaemon } from "../daemon/main.ts";
import { connectOrStart } from "./autostart.ts";
import { daemonCommand } from "./commands/daemon.ts";
import { CLIENT_COMMANDS } from "./commands/index.ts";
import { runCli } from "./run.ts";

process.exitCode = await runCli(process.argv.slice(2), {
  commands: [...CLIENT_COMMANDS, daemonCommand(runDaemon)],
  connect: connectOrStart,
});
