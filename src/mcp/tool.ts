// What an MCP tool is: a declarative entry with its name, a description an LLM can act on, its
// params as a valibot schema (the tool's inputSchema is generated from it) and a run function.
// Tools return a result or throw: mcp-server.ts is the one place that turns a throw into an
// `isError` result whose text says what to do next (advice.ts).
import type * as v from "valibot";
import type { CallToolResult, ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import type { MethodName, ParamsOf, ResultOf } from "../protocol/methods.ts";

export type ToolResult = CallToolResult;

export interface ToolContext {
  /** A native method on the user's daemon. */
  call<M extends MethodName>(method: M, params?: ParamsOf<M>): Promise<ResultOf<M>>;
  /** Who the sessions this server starts belong to: the MCP client's name (its clientInfo). */
  owner: string;
  /** The screen `seq` this agent last read, per session id (read_screen's changes_only). */
  lastRead: Map<string, number>;
  /** Sessions this agent has typed into (by the name or id it used): wait_for then counts only what came after its last input. */
  typedInto: Set<string>;
  /** Text this agent typed with type_text that no Enter has sent yet, per session (submit refuses to add to it while it is on an input line). */
  pendingLine: Map<string, string>;
  /** The output offset up to which this agent has read each session's output (read_output), by session id. */
  outputRead: Map<string, number>;
  /** Asks the person at the host directly (MCP elicitation); null when the host cannot. */
  elicit:
    | ((message: string, schema: { type: "object"; properties: Record<string, unknown>; required?: string[] }) => Promise<ElicitResult>)
    | null;
  signal: AbortSignal;
}

/** MCP's hints to a host about a tool (it may ask the user less for one that only reads). */
export interface ToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface Tool<S extends v.GenericSchema = v.GenericSchema> {
  name: string;
  title: string;
  description: string;
  annotations: ToolAnnotations;
  params: S;
  run(params: v.InferOutput<S>, ctx: ToolContext): Promise<ToolResult>;
}

export function tool<S extends v.GenericSchema>(t: Tool<S>): Tool<S> {
  return t;
}

/** A failure the agent can act on: `message` says what happened and what to do next. */
export class ToolError extends Error {}

export function text(body: string, structured?: Record<string, unknown>): ToolResult {
  return { content: [{ type: "text", text: body }], ...(structured ? { structuredContent: structured } : {}) };
}
