import { describe, expect, test } from "bun:test";
import { MAX_QUERY_BYTES } from "./queries.ts";
import { QueryFilter } from "./query-filter.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);

/** The filtered stream, fed whole, byte by byte, and split at every point into two chunks: all equal. */
function filtered(input: string): string {
  const bytes = enc(input);
  const run = (chunks: Uint8Array[]) => {
    const f = new QueryFilter();
    const out = [...chunks.map((c) => f.filter(c)), f.flush()];
    return dec(Buffer.concat(out));
  };
  const whole = run([bytes]);
  expect(run([...bytes].map((b) => new Uint8Array([b])))).toBe(whole);
  for (let i = 1; i < bytes.length; i++) expect(run([bytes.subarray(0, i), bytes.subarray(i)])).toBe(whole);
  return whole;
}

describe("queries the daemon answers are removed", () => {
  test.each([
    ["DA1", "\x1b[c"],
    ["DA1 with 0", "\x1b[0c"],
    ["DA1 with 0 written twice (xterm reads 0)", "\x1b[00c"],
    ["DA2", "\x1b[>c"],
    ["DA2 with 0", "\x1b[>0c"],
    ["DSR", "\x1b[5n"],
    ["CPR", "\x1b[6n"],
    ["DECXCPR", "\x1b[?6n"],
    ["DECRQM", "\x1b[?2026$p"],
    ["ANSI DECRQM", "\x1b[4$p"],
    ["XTVERSION", "\x1b[>q"],
    ["XTVERSION with 0", "\x1b[>0q"],
    ["kitty keyboard query", "\x1b[?u"],
    ["OSC 10 query, BEL", "\x1b]10;?\x07"],
    ["OSC 11 query, ST", "\x1b]11;?\x1b\\"],
    ["OSC 10 asking for two colours", "\x1b]10;?;?\x07"],
    ["OSC 12 query", "\x1b]12;?\x07"],
    ["DECRQSS", "\x1bP$qm\x1b\\"],
  ])("%s", (_name, query) => {
    expect(filtered(`a${query}b`)).toBe("ab");
  });

  test("several queries in a row, between text, all go", () => {
    expect(filtered("x\x1b[>q\x1b[?u\x1b]11;?\x1b\\\x1b[c y")).toBe("x y");
  });

  test("a C0 control inside a colour query goes with it: a terminal ignores it there and answers", () => {
    expect(filtered("a\x1b]11;\r?\x07b")).toBe("ab");
  });

  test("a colour query ended by a new sequence instead of ST goes, and the new sequence stays", () => {
    expect(filtered("\x1b]11;?\x1b[1mB")).toBe("\x1b[1mB");
  });
});

describe("everything else passes unchanged", () => {
  test.each([
    ["SGR", "\x1b[1;31mred\x1b[0m"],
    ["cursor and erase", "\x1b[H\x1b[2J\x1b[10;5H\x1b[K"],
    ["modes", "\x1b[?1049h\x1b[?25l\x1b[?2004h"],
    ["kitty push and pop", "\x1b[>1u\x1b[<u"],
    ["restore cursor (CSI u)", "\x1b[u"],
    ["DA with a parameter xterm does not answer", "\x1b[1c"],
    ["DA3", "\x1b[=c"],
    ["titles", "\x1b]0;title\x07\x1b]2;t\x1b\\"],
    ["a colour being set", "\x1b]10;#ffffff\x07\x1b]11;rgb:0/0/0\x1b\\"],
    ["palette query (nobody here answers it)", "\x1b]4;1;?\x07"],
    ["OSC 110", "\x1b]110\x07"],
    ["a hyperlink", "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\"],
    ["XTGETTCAP", "\x1bP+q544e\x1b\\"],
    ["ESC sequences", "\x1b7\x1b8\x1b(B\x1b=\x1b>\x1bc"],
    ["UTF-8 text", "héllo ✓ 漢字"],
    ["a lone ESC at the end of the stream", "abc\x1b"],
    ["a cancelled CSI", "\x1b[6\x18n"],
  ])("%s", (_name, s) => {
    expect(filtered(s)).toBe(s);
  });

  test("a C0 control inside a held sequence is passed at once, and the query still goes", () => {
    expect(filtered("\x1b[6\rn")).toBe("\r");
  });

  test("a long OSC is streamed as soon as it cannot be a query, not held to its end", () => {
    const f = new QueryFilter();
    const payload = "x".repeat(100_000);
    const out = f.filter(enc(`\x1b]52;c;${payload}`));
    expect(out.length).toBe(payload.length + 7);
    expect(f.pending).toBe(0);
    expect(dec(f.filter(enc("\x07after")))).toBe("\x07after");
  });

  test("an unfinished query is held back until it is decided", () => {
    const f = new QueryFilter();
    expect(dec(f.filter(enc("ab\x1b[")))).toBe("ab");
    expect(f.pending).toBe(2);
    expect(dec(f.filter(enc("1mc")))).toBe("\x1b[1mc");
    expect(dec(f.filter(enc("\x1b[6")))).toBe("");
    expect(dec(f.filter(enc("nd")))).toBe("d");
  });

  test("a chunk without ESC comes back as the same array", () => {
    const chunk = enc("plain text");
    expect(new QueryFilter().filter(chunk)).toBe(chunk);
  });
});

describe("limits", () => {
  test("a query as long as MAX_QUERY_BYTES is still cut, one byte longer passes, whole or split", () => {
    // ESC [ ? and 6 $ p around the zeros.
    const zeros = MAX_QUERY_BYTES - 6;
    expect(filtered(`\x1b[?${"0".repeat(zeros)}6$pX`)).toBe("X");
    const longer = `\x1b[?${"0".repeat(zeros + 1)}6$pX`;
    expect(filtered(longer)).toBe(longer);
    // A string query counts with its ST, whatever follows its ESC: ESC P $ q, the payload, ST.
    const dcs = (n: number) => `\x1bP$q${" ".repeat(n)}m\x1b\\X`;
    expect(filtered(dcs(MAX_QUERY_BYTES - 7))).toBe("X");
    expect(filtered(dcs(MAX_QUERY_BYTES - 6))).toBe(dcs(MAX_QUERY_BYTES - 6));
  });

  test("random bytes come out the same however they are chunked, and nothing throws", () => {
    const alphabet = ["\x1b", "[", "]", "P", "?", ">", "6", "n", "c", "q", "u", "$", "p", ";", "1", "0", "\x07", "\\", "x", "\x18"];
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (let round = 0; round < 200; round++) {
      let s = "";
      for (let i = 0; i < 40; i++) s += alphabet[rand(alphabet.length)];
      filtered(s);
    }
  });
});
