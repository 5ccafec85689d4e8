// `termd mcp`: an MCP server over stdio (the official SDK's low-level Server, so the tools'
// JSON Schemas come straight from their valibot schemas) and a client of the user's daemon, as
// the CLI is. Every tool call runs against that daemon; sessions it starts carry the MCP
// client's name as their owner (meta.owner), so `termd ls` shows which agent owns what.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import * as v from "valibot";
import type { Client } from "../client/client.ts";
import { jsonSchemaOf } from "../protocol/json-schema.ts";
import { VERSION } from "../protocol/version.ts";
import { advise, errorResult } from "./advice.ts";
import { DaemonLink } from "./daemon-link.ts";
import type { ToolContext, ToolResult } from "./tool.ts";
import { TOOLS } from "./tools/index.ts";

interface McpOptions {
  socketPath: string;
  connect: (socketPath: string) => Promise<Client>;
}

/**
 * A tool call still running (a wait, a command) reports progress this often when the host asked
 * for progress: a host that restarts its time limit on progress then lets a long wait finish.
 */
export const PROGRESS_EVERY_MS = 2000;

/** A reply's text is cut to this many characters (its head and its end kept), so one call never floods the agent's context. */
export const MAX_REPLY_CHARS = 16_000;

function bounded(r: ToolResult): ToolResult {
  for (const c of r.content) {
    if (c.type !== "text" || c.text.length <= MAX_REPLY_CHARS) continue;
    const keep = MAX_REPLY_CHARS - 100;
    c.text = `${c.text.slice(0, keep / 2)}\n… ${c.text.length - keep} characters left out (replies stay under ${MAX_REPLY_CHARS}) …\n${c.text.slice(-keep / 2)}`;
  }
  return r;
}

const INSTRUCTIONS = [
  "termd gives you persistent terminal sessions you can see and type into: shells, TUIs, REPLs, other agents.",
  "Typical loop: start_session → submit (a command or prompt) → wait_for (text, regex, gone, idle_ms, exit) → read_screen.",
  "In a shell session, run_command returns a command's output and exit code directly, and wait_for command_done waits for a command you submitted at the prompt.",
  "For password prompts use type_secret: never ask for secrets in chat.",
  "A person can watch or take over any session with `termd attach NAME`.",
  `Rows come with trailing spaces trimmed; a reply's text stays under ${MAX_REPLY_CHARS} characters (longer text keeps its head and end).`,
].join(" ");

/**
 * A tool's inputSchema: without `$schema`, so each host reads it as its default dialect (the
 * keywords used mean the same in draft-07 and 2020-12).
 */
function toolSchema(params: v.GenericSchema): { type: "object"; [key: string]: unknown } {
  const { $schema: _dialect, ...schema } = jsonSchemaOf(params);
  return { ...schema, type: "object" };
}

function createMcpServer(o: McpOptions): { server: Server; link: DaemonLink } {
  const link = new DaemonLink(o.socketPath, o.connect);
  const server = new Server({ name: "termd", version: VERSION }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  const lastRead = new Map<string, number>();
  const typedInto = new Set<string>();
  const outputRead = new Map<string, number>();
  const pendingLine = new Map<string, string>();
  const byName = new Map(TOOLS.map((t) => [t.name, t]));
  const listed = TOOLS.map((t) => ({
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: toolSchema(t.params),
    annotations: { title: t.title, ...t.annotations },
  }));

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }));

  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const ctx: ToolContext = {
      call: (method, params) => link.call(method, params),
      owner: `mcp:${server.getClientVersion()?.name ?? "unknown"}`,
      lastRead,
      typedInto,
      outputRead,
      pendingLine,
      elicit: server.getClientCapabilities()?.elicitation
        ? (message, requestedSchema) =>
            server.elicitInput({ message, requestedSchema: requestedSchema as never }, { signal: extra.signal, timeout: 10 * 60_000 })
        : null,
      signal: extra.signal,
    };
    const t = byName.get(req.params.name);
    if (!t) return errorResult(`no tool named ${req.params.name}; the tools are: ${TOOLS.map((x) => x.name).join(", ")}`);
    const parsed = v.safeParse(t.params, req.params.arguments ?? {});
    if (!parsed.success) {
      const issues = parsed.issues.map((i) => `${v.getDotPath(i) ?? "arguments"}: ${i.message}`).join("; ");
      return errorResult(`invalid arguments for ${t.name}: ${issues}`);
    }
    const session =
      typeof (parsed.output as { session?: unknown }).session === "string" ? (parsed.output as { session: string }).session : undefined;
    const token = req.params._meta?.progressToken;
    const started = performance.now();
    const progress =
      token === undefined
        ? undefined
        : setInterval(() => {
            const s = Math.round((performance.now() - started) / 1000);
            void extra
              .sendNotification({
                method: "notifications/progress",
                params: { progressToken: token, progress: s, message: `${t.name}: ${s} s` },
              })
              .catch(() => {});
          }, PROGRESS_EVERY_MS);
    try {
      return bounded(await t.run(parsed.output, ctx));
    } catch (err) {
      return errorResult(await advise(err, ctx, session));
    } finally {
      clearInterval(progress);
    }
  });
  return { server, link };
}

/** Serves MCP on this process's stdin and stdout until the host closes them. */
export async function runMcpServer(o: McpOptions): Promise<void> {
  const { server, link } = createMcpServer(o);
  const closed = Promise.withResolvers<void>();
  server.onclose = () => closed.resolve();
  await server.connect(new StdioServerTransport());
  // The host ends the server by closing its stdin.
  process.stdin.once("end", () => void server.close());
  await closed.promise;
  link.close();
}
