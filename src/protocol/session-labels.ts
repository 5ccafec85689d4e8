// How a session's info reads to a person: its owner and its state. One reading for the CLI, MCP and
// the attach page (which is bundled for the browser: nothing here may import Bun or node).

/** Who a session belongs to: an agent or tool that created it says so in its meta (`owner`, as `termd mcp` sets it, or `agent` or `client`); null when none does. */
export function ownerOf(s: { meta?: Record<string, unknown> }): string | null {
  const m = s.meta ?? {};
  for (const key of ["owner", "agent", "client"]) if (typeof m[key] === "string" && m[key]) return m[key] as string;
  return null;
}

/** The state with how it ended: `exited (0)`, `killed (SIGKILL)`, `running`. */
export function statusOf(s: { state: string; signal: string | null; exit_code: number | null }): string {
  if (s.signal) return `${s.state} (${s.signal})`;
  if (s.exit_code !== null) return `${s.state} (${s.exit_code})`;
  return s.state;
}
