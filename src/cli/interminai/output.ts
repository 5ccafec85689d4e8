// `interminai output`: the screen (and scrollback, --from/--to), in colour unless --no-color,
// with line numbers (-n) and the cursor (--cursor print|inverse|both). The daemon renders; the
// numbering and the cursor mark are done here, from the reply's `from` and `cursor`.
import { SOCKET, type Subcommand } from "./args.ts";
import { UsageError } from "../args.ts";
import { call } from "./request.ts";
import { markCursor, numberLines } from "./render.ts";
import { writeOut } from "../closed-stdout.ts";
import { walkPages } from "../../client/screen-pages.ts";

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

type OutputReply = Record<string, unknown>;

/** Where a reply's lines start (negative: in the scrollback), if it says. */
const firstLine = (r: OutputReply): number | null => (typeof r.from === "number" ? r.from : null);

/**
 * The OUTPUT reply, with all the scrollback `from` asks for: a reply holds the newest lines that
 * fit its bound, and says in `from` where they start, so the older ones are asked for again, each
 * request ending (`to`) just above what came, and put before them. Output between two requests
 * moves the lines counted from the screen: the pages are read again (termd's client/screen-pages.ts
 * walk), told by termd's `offset` or, from interminai's own daemon, `scrollback_available`.
 */
export async function withOlder(
  call: (req: OutputReply) => Promise<OutputReply>,
  req: OutputReply,
  from: number | "-" | undefined,
): Promise<OutputReply> {
  const [data, ...older] = await walkPages(
    () => call(req),
    (pages) => {
      const first = firstLine(pages.at(-1)!);
      const held = -Number(pages[0].scrollback_available);
      const oldest = from === "-" ? held : typeof from === "number" ? Math.max(from, held) : 0;
      // A page that gave nothing above the one before it (a daemon that ignores `to`) ends the walk.
      const gained = pages.length === 1 || (first !== null && first < firstLine(pages.at(-2)!)!);
      if (!gained || first === null || first >= 0 || oldest >= first) return null;
      return call({ ...req, to: first - 1 });
    },
    (newest, page) =>
      page.offset !== newest.offset ||
      page.scrollback_available !== newest.scrollback_available ||
      JSON.stringify(page.size) !== JSON.stringify(newest.size),
  );
  let first = firstLine(data);
  for (const page of older) {
    const from = firstLine(page);
    if (from === null || first === null || from >= first) break;
    data.screen = `${page.screen}${data.screen}`;
    data.from = first = from;
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
    const socket = a.values.get("socket")!;
    const data = await withOlder((r) => call(socket, r), req, from);
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
