// dist/termd-client.mjs: the client-side commands only, for Node ≥ 20 or Bun with no
// node_modules. It talks to a running daemon and never starts one.
import { CLIENT_COMMANDS } from "./commands/index.ts";
import { runCli } from "./run.ts";

process.exitCode = await runCli(process.argv.slice(2), {
  commands: { ...CLIENT_COMMANDS, daemon: async () => (await import("./commands/daemon.ts")).daemonCommand() },
});
