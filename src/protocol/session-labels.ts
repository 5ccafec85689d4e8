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

/** Characters no POSIX shell gives a meaning to in a word. */
const PLAIN = new Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_@%+=:,./-");

// Loops, not a regular expression or map: `termd ls` prints this, and a process's first regular
// expression and array builtin cost it a fraction of a millisecond (cli/format.ts's table).
/** A word as a POSIX shell reads it back: as it is when it holds nothing a shell would take apart, else single-quoted. */
function shellWord(w: string, first: boolean): string {
  let plain = w !== "";
  // The first word with a `=` would be read as a variable assignment.
  for (const c of w) if (!PLAIN.has(c) || (first && c === "=")) plain = false;
  return plain ? w : `'${w.replaceAll("'", `'\\''`)}'`;
}

/** A session's argv as a line a shell would run again (`vim -c 'set nu' /etc/passwd`), quoted only where needed. */
export function commandLine(argv: readonly string[]): string {
  let line = "";
  for (const w of argv) line += line === "" ? shellWord(w, true) : ` ${shellWord(w, false)}`;
  return line;
}
