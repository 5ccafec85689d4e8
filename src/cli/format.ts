// Printing helpers shared by subcommands: JSON when asked, aligned tables otherwise.
import type { SessionInfo } from "../protocol/schemas.ts";
import { commandLine, ownerOf, statusOf } from "../protocol/session-labels.ts";
import type { CliContext } from "./command.ts";

export function printJson(ctx: CliContext, value: unknown): void {
  ctx.out(JSON.stringify(value, null, 2));
}

// Loops, not map or filter: a process's first use of JavaScriptCore's array builtins parses them
// from source, 0.4-0.5 ms of a command-line call that prints one table.
export function table(rows: string[][]): string {
  const widths: number[] = [];
  for (const r of rows) for (let i = 0; i < r.length; i++) widths[i] = Math.max(widths[i] ?? 0, r[i]!.length);
  const lines: string[] = [];
  for (const r of rows) {
    const cells: string[] = [];
    for (let i = 0; i < r.length; i++) cells.push(i === r.length - 1 ? r[i]! : r[i]!.padEnd(widths[i]!));
    lines.push(cells.join("  "));
  }
  return lines.join("\n");
}

/** A screen's rows, a line each, a blank last row too (out() ends a text with a line end only where it has none). */
export function rowsText(lines: string[]): string {
  return lines.join("\n") + "\n";
}

export function describeSession(s: SessionInfo): string {
  const lines: [string, string][] = [
    ["name", s.name],
    ["id", s.id],
    ["state", statusOf(s)],
    ["pid", String(s.pid ?? "-")],
    ["command", commandLine(s.command)],
    ["cwd", s.cwd],
    ["size", `${s.size.rows}x${s.size.cols}`],
    ["title", s.title],
    ["created", s.created_at],
    ["ended", s.ended_at ?? "-"],
    ["output", `${s.bytes_out} bytes`],
  ];
  if (s.current_cwd !== null && s.current_cwd !== s.cwd) lines.push(["now in", s.current_cwd]);
  if (s.running_command) lines.push(["running", `${s.running_command.command ?? "(a command)"} since ${s.running_command.started_at}`]);
  if (s.last_exit_code !== null) lines.push(["last $?", String(s.last_exit_code)]);
  if (s.shell_integration) lines.push(["hooks", s.shell_integration]);
  const owner = ownerOf(s);
  if (owner !== null) lines.push(["owner", owner]);
  if (s.held_by) lines.push(["held by", `${s.held_by} since ${s.held_since} (others cannot type until it is given back)`]);
  if (s.error) lines.push(["error", s.error]);
  const out: string[] = [];
  for (const [k, v] of lines) out.push(`${(k + ":").padEnd(9)}${v}`);
  return out.join("\n");
}
