// JSON Schemas of the valibot schemas, for those who cannot run valibot: MCP hosts (each tool's
// inputSchema) and `termd schema`. One source: the schemas the daemon validates against.
// valibot's checks across fields (`v.check`: "exactly one of text, keys…") have no JSON Schema
// form; they are left out here, and the daemon still enforces them.
import { toJsonSchema } from "@valibot/to-json-schema";
import type * as v from "valibot";

export type JsonSchema = Record<string, unknown>;

export function jsonSchemaOf(schema: v.GenericSchema): JsonSchema {
  // "input": what a caller may send (a field with a default is optional), not what it becomes.
  return toJsonSchema(schema, { errorMode: "ignore", typeMode: "input" }) as JsonSchema;
}
