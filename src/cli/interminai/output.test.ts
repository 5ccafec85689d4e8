// `interminai output`'s arguments through the real entry (`termd interminai`): they are checked
// before any socket is reached. (What it prints: test/dialects/interminai.test.ts.)
import { expect, test } from "bun:test";
import { runProcess, SOURCE_BIN } from "../../../test/harness.ts";
import { withOlder } from "./output.ts";

const output = (args: string[]) => runProcess([...SOURCE_BIN, "interminai", "output", "--socket", "/nonexistent/socket", ...args]);

test("--cursor takes none, inverse, print or both; anything else is clap's usage error, not a screen with no cursor", async () => {
  expect(await output(["--cursor", "bogus"])).toEqual({
    code: 2,
    stdout: "",
    stderr:
      "error: invalid value 'bogus' for '--cursor <CURSOR>'\n  [possible values: none, inverse, print, both]\n\nFor more information, try '--help'.\n",
  });
  // A valid one gets as far as the socket.
  expect(await output(["--cursor", "both"])).toMatchObject({ code: 1, stderr: expect.stringContaining("No such file") });
});

test("--from takes an integer or -, --to an integer", async () => {
  expect(await output(["--from", "x"])).toMatchObject({
    code: 2,
    stderr: expect.stringContaining("invalid value 'x' for '--from <FROM>': expected an integer or '-'"),
  });
  expect(await output(["--to", "-"])).toMatchObject({ code: 2, stderr: expect.stringContaining("invalid value '-' for '--to <TO>'") });
});

/**
 * A session socket's OUTPUT, as termd answers it, over scrollback lines numbered `first()` on
 * (`held()` of them) under one screen row, giving at most `page` lines a reply; `offset()` is what
 * each reply reports (undefined: interminai's own daemon, which reports none). `between()` runs
 * after each reply: output that arrives before the next request.
 */
function session(o: { held: () => number; first: () => number; page: number; offset?: () => number; between: () => void }) {
  const asked: unknown[] = [];
  const call = async (req: Record<string, unknown>): Promise<Record<string, unknown>> => {
    asked.push(req.to);
    const held = o.held();
    const skip = typeof req.to === "number" && req.to < 0 ? -req.to - 1 : 0;
    const n = Math.min(o.page, held - skip);
    const lines = Array.from({ length: n }, (_, i) => `${o.first() + held - skip - n + i}\n`);
    const reply = {
      screen: lines.join("") + (skip === 0 ? "screen\n" : ""),
      from: n > 0 ? -(n + skip) : 1,
      size: { rows: 1, cols: 10 },
      scrollback_available: held,
      ...(o.offset ? { offset: o.offset() } : {}),
    };
    o.between();
    return reply;
  };
  return { call, asked };
}

const numbered = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `${from + i}\n`).join("") + "screen\n";

test("--from -: output between two pages reads them again, so no line comes twice or goes missing", async () => {
  // Scrollback growing by a line after the first request: interminai's own daemon says so in scrollback_available.
  let held = 10;
  const growing = session({ held: () => held, first: () => 0, page: 4, between: () => held < 11 && held++ });
  expect((await withOlder(growing.call, { type: "OUTPUT" }, "-")).screen).toBe(numbered(0, 11));
  // A full scrollback, whose lines move up without its count changing: termd's offset says so.
  let first = 0;
  let offset = 100;
  const full = session({
    held: () => 10,
    first: () => first,
    page: 4,
    offset: () => offset,
    between: () => {
      if (first === 0) first++, offset++;
    },
  });
  const data = await withOlder(full.call, { type: "OUTPUT" }, "-");
  expect(data.screen).toBe(numbered(1, 11));
  expect(data.from).toBe(-10);
  expect(full.asked).toEqual([undefined, -5, undefined, -5, -9]);
});
