// The MCP side of the tests: the official SDK's client over stdio, running `termd mcp` against a
// private daemon (TERMD_SOCKET), as an agent host would. Disposing closes the client, which ends
// the server process.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { TestDaemon } from "../harness.ts";

export interface McpHandle {
  client: Client;
  /** A tool call's result; its text content joined. */
  call(
    name: string,
    args?: Record<string, unknown>,
  ): Promise<{ text: string; isError: boolean; structured: Record<string, unknown> | undefined; result: CallToolResult }>;
  [Symbol.asyncDispose](): Promise<void>;
}

export async function mcpClient(
  d: TestDaemon,
  opts: { name?: string; bin?: string[]; capabilities?: Record<string, unknown> } = {},
): Promise<McpHandle> {
  const [command, ...args] = opts.bin ?? d.bin;
  const transport = new StdioClientTransport({ command: command!, args: [...args, "mcp"], env: d.env, stderr: "inherit" });
  const client = new Client({ name: opts.name ?? "test-agent", version: "1.0.0" }, { capabilities: opts.capabilities ?? {} });
  await client.connect(transport);
  return {
    client,
    async call(name, a = {}) {
      const result = (await client.callTool({ name, arguments: a }, undefined, { timeout: 60_000 })) as CallToolResult;
      const text = result.content.map((c) => (c.type === "text" ? c.text : `[${c.type}]`)).join("\n");
      return {
        text,
        isError: result.isError === true,
        structured: result.structuredContent as Record<string, unknown> | undefined,
        result,
      };
    },
    async [Symbol.asyncDispose]() {
      await client.close();
    },
  };
}
