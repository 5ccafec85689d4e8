// The dialects a connection may speak besides native JSON-RPC, tried in order on its first
// message (DESIGN.md: `type` → interminai, `cmd` → console server, `method` without `jsonrpc`
// → TRL).
import type { Dialect } from "./dialect.ts";
import { interminai } from "./interminai.ts";
import { consoleServer } from "./console.ts";
import { trl } from "./trl.ts";

export const DIALECTS: Dialect[] = [interminai, consoleServer, trl];

/**
 * The dialect of a connection whose first message is `first` (null: native JSON-RPC). `fallback`
 * is the socket's own dialect (an interminai session socket's), for a first message nobody claims.
 */
export function pickDialect(first: unknown, fallback: Dialect | null = null): Dialect | null {
  if (typeof first !== "object" || first === null || Array.isArray(first)) return fallback;
  const msg = first as Record<string, unknown>;
  if ("jsonrpc" in msg) return null;
  return DIALECTS.find((d) => d.claims(msg)) ?? fallback;
}

export function dialectNamed(name: string): Dialect | undefined {
  return DIALECTS.find((d) => d.name === name);
}
