// `termd interminai …`: the interminai personality as a termd subcommand (it parses its own arguments).
import { cliCommand } from "../command.ts";

export const interminaiCommand = cliCommand({
  name: "interminai",
  summary: "behave as interminai: start, input, output, status, wait, kill, resize, debug, stop",
  args: "SUBCOMMAND [OPTIONS]",
  help: "Runs interminai's command line against session sockets; see termd interminai --help.",
  flags: {},
  run: async () => 2,
  // Its own command line is loaded only when it runs.
  passthrough: async (argv) => (await import("./main.ts")).runInterminai(argv),
});
