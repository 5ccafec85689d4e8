// termd mcp: the MCP server for agent hosts (src/mcp/). Only in the full binary: it starts the
// daemon when none answers, as every other command there does.
import type { Client } from "../../client/client.ts";
import { cliCommand, EXIT, type CliCommand } from "../command.ts";
import { endQuietlyOnClosedStdout } from "../closed-stdout.ts";
import { noMoreArgs } from "./shared.ts";

export function mcpCommand(connect: (socketPath: string) => Promise<Client>): CliCommand {
  return cliCommand({
    name: "mcp",
    summary: "serve MCP (Model Context Protocol) on stdin/stdout for AI agents",
    help: [
      "An MCP server over stdio, started by an agent host (Claude Code, Codex, Gemini CLI …), e.g.",
      "  claude mcp add termd -- termd mcp",
      "Its tools start sessions in the user's daemon (started if none answers), type, submit, press keys,",
      "read the screen, wait, run commands and stop sessions; sessions are owned by the host's name,",
      "which termd ls shows. It runs until the host closes its standard input.",
    ].join("\n"),
    flags: {},
    async run(a, ctx) {
      noMoreArgs(a);
      // Loaded when used: every other command starts faster without the MCP SDK.
      const { runMcpServer } = await import("../../mcp/mcp-server.ts");
      // The host closing its end is the normal way MCP ends.
      endQuietlyOnClosedStdout();
      await runMcpServer({ socketPath: ctx.socketPath, connect });
      return EXIT.OK;
    },
  });
}
