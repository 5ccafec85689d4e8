// `interminai output`: the screen (and scrollback, --from/--to), in colour unless --no-color,
// with line numbers (-n) and the cursor (--cursor print|inverse|both). The daemon renders; the
// numbering and the cursor mark are done here, from the reply's `from` and `cursor`.
import { SOCKET, type Subcommand } from "./args.ts";
import { UsageError } from "../args.ts";
import { call } from "./request.ts";
import { markCursor, numberLines } from "./render.ts";
import { writeOut } from "../closed-stdout.ts";

/** --from: an integer (negative: scrollback) or "-" (all of it). */
function parseFrom(v: string | undefined): number | "-" | undefined {
  if (v === undefined || v === "-") return v;
  if (!/^-?\d+$/.test(v))
    throw new UsageError(
      `error: invalid value '${v}' for '--from <FROM>': expected an integer or '-'\n\nFor more information, try '--help'.\n`,
    );
  return Number(v);
}

function parseTo(v: string | undefined): number | null {
  if (v === undefined) return null;
  if (!/^-?\d+$/.test(v))
    throw new UsageError(
      `error: invalid value '${v}' for '--to <TO>': invalid digit found in string\n\nFor more information, try '--help'.\n`,
    );
  return Number(v);
}

/**
 * The OUTPUT reply, with all the scrollback `from` asks for: termd's reply holds the newest lines
 * that fit its bound, and says in `from` where they start, so the older ones are asked for again,
 * each request ending (`to`) just above what came, and put before them.
 */
async function withOlder(socket: string, req: Record<string, unknown>, from: number | "-" | undefined): Promise<Record<string, unknown>> {
  const data = await call(socket, req);
  const held = -Number(data.scrollback_available);
  const oldest = from === "-" ? held : typeof from === "number" ? Math.max(from, held) : 0;
  let first = data.from;
  while (typeof first === "number" && first < 0 && oldest < first) {
    const older = await call(socket, { ...req, to: first - 1 });
    if (typeof older.from !== "number" || older.from >= first) break;
    data.screen = `${older.screen}${data.screen}`;
    data.from = first = older.from;
  }
  return data;
}

export const output: Subcommand = {
  name: "output",
  about: "Get screen output from running session",
  opts: [
    SOCKET,
    { long: "color", help: "Enable color output (default)" },
    { long: "no-color", help: "Disable color output (plain text, useful for grep/head)" },
    { long: "number", short: "n", help: "Number lines (scrollback lines negative)" },
    {
      long: "cursor",
      value: "CURSOR",
      help: "Cursor display mode [default: none]",
      possible: ["none", "inverse", "print", "both"],
    },
    { long: "from", value: "FROM", help: "First line: N, -N (N lines of scrollback) or - (all scrollback)" },
    { long: "to", value: "TO", help: "Last line, inclusive (0: scrollback only; negative: a scrollback line)" },
  ],
  async run(a) {
    const from = parseFrom(a.values.get("from"));
    const to = parseTo(a.values.get("to"));
    const cursorMode = a.values.get("cursor") ?? "none";
    const req: Record<string, unknown> = { type: "OUTPUT", format: a.flags.has("no-color") ? "ascii" : "ansi" };
    if (from !== undefined) req.from = from;
    if (to !== null) req.to = to;
    const data = await withOlder(a.values.get("socket")!, req, from);
    const screen = typeof data.screen === "string" ? data.screen : "";
    const cursor = data.cursor as { row: number; col: number } | undefined;
    let lines = screen.split("\n");
    if (lines.at(-1) === "") lines.pop();
    const first = typeof data.from === "number" ? data.from : 1;
    if ((cursorMode === "inverse" || cursorMode === "both") && cursor) {
      const idx = (first < 0 ? -first : 0) + cursor.row; // the screen's rows follow the scrollback lines
      if (idx < lines.length) lines[idx] = markCursor(lines[idx]!, cursor.col);
    }
    if (a.flags.has("number")) lines = numberLines(lines, first);
    let text = lines.map((l) => l + "\n").join("");
    if ((cursorMode === "print" || cursorMode === "both") && cursor) text = `Cursor: row ${cursor.row + 1}, col ${cursor.col + 1}\n${text}`;
    await writeOut(text);
    return 0;
  },
};
