import { describe, expect, test } from "bun:test";
import { plainText } from "./plain-text.ts";
import { MAX_QUERY_BYTES } from "./queries.ts";
import { defaultModes, readable, type TapEvent } from "./tap-facts.ts";
import { VtTap } from "./vt-tap.ts";

const enc = (s: string) => new TextEncoder().encode(s);

const dec = (b: Uint8Array) => new TextDecoder().decode(b);

/** Feeds `input` whole to one tap and byte by byte to another: both must end equal. */
function tap(input: string, opts: { debugBuffer?: number } = {}) {
  const events: TapEvent[] = [];
  const t = new VtTap({ ...opts, onEvent: (e) => events.push(e) });
  t.feed(enc(input));
  const byByteEvents: TapEvent[] = [];
  const b = new VtTap({ ...opts, onEvent: (e) => byByteEvents.push(e) });
  for (const byte of enc(input)) b.feed(new Uint8Array([byte]));
  const strip = (es: TapEvent[]) => es.map((e) => (e.type === "mark" ? { ...e, mark: { ...e.mark, time: "" } } : e));
  expect(strip(byByteEvents)).toEqual(strip(events));
  expect(b.modes).toEqual(t.modes);
  expect(b.unhandled()).toEqual(t.unhandled());
  expect([b.title, b.cwd, b.bells, b.lastExitCode, b.end]).toEqual([t.title, t.cwd, t.bells, t.lastExitCode, t.end]);
  expect(dec(b.queries.cut(enc(input), 0))).toBe(dec(t.queries.cut(enc(input), 0)));
  expect(b.queryHold).toBe(t.queryHold);
  return { t, events, cut: dec(t.queries.cut(enc(input), 0)) };
}

describe("modes", () => {
  test("a fresh tap reports a plain terminal's modes", () => {
    expect(new VtTap().modes).toEqual(defaultModes());
  });

  test("DECSET and DECRST switch each tracked mode on and off, several per sequence", () => {
    const { t } = tap("\x1b[?1;25l\x1b[?1049;2004;1004;2026;1006h\x1b[?1002h");
    expect(t.modes).toEqual({
      ...defaultModes(),
      application_cursor: false,
      cursor_visible: false,
      alternate: true,
      bracketed_paste: true,
      focus: true,
      synchronized_output: true,
      mouse_sgr: true,
      mouse: "drag",
    });
    const { t: t2 } = tap("\x1b[?1h\x1b[?1000h\x1b[?1003h\x1b[?1000l\x1b[?47h\x1b[?47l\x1b[?1047h");
    expect(t2.modes).toMatchObject({ application_cursor: true, mouse: "none", alternate: true });
  });

  test("each change is one mode event; setting a mode already on says nothing", () => {
    const { events } = tap("\x1b[?2004h\x1b[?2004h\x1b[?2004l");
    expect(events).toEqual([
      { type: "mode", mode: "bracketed_paste", value: true },
      { type: "mode", mode: "bracketed_paste", value: false },
    ]);
  });

  test("ESC = and ESC > switch the application keypad; DECSTR resets the DEC modes but not the screen", () => {
    const { t } = tap("\x1b=\x1b[?1h\x1b[?25l\x1b[?2004h\x1b[?1049h\x1b[!p");
    expect(t.modes).toMatchObject({
      application_keypad: false,
      application_cursor: false,
      cursor_visible: true,
      bracketed_paste: false,
      alternate: true,
    });
    expect(tap("\x1b=").t.modes.application_keypad).toBe(true);
    expect(tap("\x1b=\x1b>").t.modes.application_keypad).toBe(false);
  });

  test("RIS puts every mode back", () => {
    const { t } = tap("\x1b[?1049h\x1b[?1h\x1b[>1u\x1b[?1003h\x1bc");
    expect(t.modes).toEqual(defaultModes());
  });
});

describe("kitty keyboard flags", () => {
  test("push, set, pop: the flags in force follow the stack", () => {
    const { t, events } = tap("\x1b[>1u\x1b[>3u\x1b[=4;2u\x1b[<u");
    expect(t.modes.kitty_keyboard).toBe(1);
    expect(events.map((e) => (e.type === "mode" ? e.value : null))).toEqual([1, 3, 7, 1]);
    expect(tap("\x1b[>1u\x1b[>3u\x1b[<2u").t.modes.kitty_keyboard).toBe(0);
    expect(tap("\x1b[=5u\x1b[=1;3u").t.modes.kitty_keyboard).toBe(4);
  });

  test("the alternate screen has its own stack: leaving it brings back the main screen's flags", () => {
    const { t } = tap("\x1b[>1u\x1b[?1049h");
    expect(t.modes.kitty_keyboard).toBe(0);
    t.feed(enc("\x1b[>15u"));
    expect(t.modes.kitty_keyboard).toBe(15);
    t.feed(enc("\x1b[?1049l"));
    expect(t.modes.kitty_keyboard).toBe(1);
  });
});

describe("title, cwd, marks, bell", () => {
  test("OSC 0 and OSC 2 set the title, BEL or ST ended; OSC 1 (icon name) does not", () => {
    expect(tap("\x1b]2;hello\x07").t.title).toBe("hello");
    expect(tap("\x1b]0;both\x1b\\").t.title).toBe("both");
    expect(tap("\x1b]1;icon\x07").t.title).toBe("");
    const { events } = tap("\x1b]2;a\x07\x1b]2;a\x07\x1b]2;b\x07");
    expect(events).toEqual([
      { type: "title", title: "a" },
      { type: "title", title: "b" },
    ]);
  });

  test("CSI 22 t saves the title and CSI 23 t brings it back", () => {
    expect(tap("\x1b]2;first\x07\x1b[22;0t\x1b]2;second\x07\x1b[23;0t").t.title).toBe("first");
  });

  test("OSC 7 sets the directory from a file:// URL, percent-decoded", () => {
    const { t, events } = tap("\x1b]7;file://box/home/me/my%20dir\x07");
    expect(t.cwd).toBe("/home/me/my dir");
    expect(events).toEqual([{ type: "cwd", cwd: "/home/me/my dir" }]);
    expect(tap("\x1b]7;file:///tmp\x1b\\").t.cwd).toBe("/tmp");
    expect(tap("\x1b]7;kitty-shell-cwd://h/srv\x07").t.cwd).toBe("/srv");
  });

  test("OSC 133 marks are kept in order, and D's status is the last exit code", () => {
    const { t } = tap("\x1b]133;A\x07$ \x1b]133;B\x07false\r\n\x1b]133;C\x07\x1b]133;D;3\x07\x1b]133;A;aid=1\x07");
    expect(t.marks.map((m) => m.kind)).toEqual(["A", "B", "C", "D", "A"]);
    expect(t.marks[3]!.exit_code).toBe(3);
    expect(t.lastExitCode).toBe(3);
    const { t: t2 } = tap("\x1b]133;D;0\x07\x1b]133;D\x07");
    expect(t2.lastExitCode).toBe(0);
    expect(t2.marks[1]!.exit_code).toBeNull();
  });

  test("C carries the command line (cmdline_url, or VS Code's 633 E before it); running lasts from C to D", () => {
    const { t } = tap("\x1b]133;A\x07$ \x1b]133;B\x07\x1b]133;C;cmdline_url=echo%20a%3Bb%20%C3%A9\x07");
    expect(t.marks.at(-1)).toMatchObject({ kind: "C", command: "echo a;b é" });
    expect(t.running?.command).toBe("echo a;b é");
    const { t: done } = tap("\x1b]133;C;cmdline_url=ls\x07out\r\n\x1b]133;D;0\x07");
    expect(done.running).toBeNull();
    const { t: vscode } = tap("\x1b]633;E;printf \\\\x3b\\x3b\x07\x1b]633;C\x07");
    expect(vscode.running?.command).toBe("printf \\x3b;");
    // No line sent: running, with the line unknown; a bad encoding is no line either.
    expect(tap("\x1b]133;C\x07").t.running).toMatchObject({ command: null });
    expect(tap("\x1b]133;C;cmdline_url=%E0%A4%A\x07").t.running).toMatchObject({ command: null });
  });

  test("a mark event tells the offset just past the mark, past ST's two bytes when ST ended it", () => {
    const { events } = tap("ab\x1b]133;A\x07\x1b]133;B\x1b\\");
    expect(events.map((e) => (e.type === "mark" ? [e.mark.kind, e.end] : null))).toEqual([
      ["A", 10],
      ["B", 19],
    ]);
  });

  test("exec's done mark gives its status, nonce and end, and is neither a shell mark nor an exit code", () => {
    const { t, events } = tap("out\r\n\x1b]133;termd-done;-3;ab12\x07$ ");
    expect(events).toEqual([{ type: "done_mark", status: -3, nonce: "ab12", end: 30 }]);
    expect(t.marks).toEqual([]);
    expect(t.lastExitCode).toBeNull();
    // Only the exact form counts.
    expect(tap("\x1b]133;termd-done;x;ab12\x07\x1b]133;termd-done;1\x07\x1b]633;termd-done;1;n\x07").events).toEqual([]);
  });

  test("VS Code's OSC 633 gives marks and the directory", () => {
    const { t } = tap("\x1b]633;P;Cwd=/work\x07\x1b]633;D;7\x07");
    expect(t.cwd).toBe("/work");
    expect(t.lastExitCode).toBe(7);
  });

  test("every BEL counts, but not one that ends an OSC; a chunk gives one bell event with the count", () => {
    const t = new VtTap();
    const events: TapEvent[] = [];
    const t2 = new VtTap({ onEvent: (e) => events.push(e) });
    for (const x of [t, t2]) x.feed(enc("a\x07b\x07\x1b]2;t\x07"));
    expect(t.bells).toBe(2);
    expect(events.filter((e) => e.type === "bell")).toEqual([{ type: "bell", count: 2 }]);
    t2.feed(enc("\x07"));
    expect(events.filter((e) => e.type === "bell")).toEqual([
      { type: "bell", count: 2 },
      { type: "bell", count: 3 },
    ]);
  });
});

describe("the queries termd answers", () => {
  test("each one's bytes are recorded, and cutting them leaves the rest in order", () => {
    const { cut } = tap(
      "a\x1b[c\x1b[1mb\x1b[>0c\x1b[6n\x1b[?6n\x1b[?2026$p\x1b[4$p\x1b[>q\x1b[?u\x1b]11;?\x07\x1b]10;?;?\x1b\\\x1bP$qm\x1b\\c",
    );
    expect(cut).toBe("a\x1b[1mbc");
  });

  test("sequences that look alike but ask nothing stay", () => {
    const s = "\x1b[1c\x1b[=c\x1b[>1u\x1b[u\x1b]11;#000\x07\x1b]4;1;?\x07\x1bP+q544e\x1b\\\x1b[3n";
    expect(tap(s).cut).toBe(s);
  });

  test("a C0 control inside a CSI query stays, as a terminal executes it there", () => {
    expect(tap("\x1b[6\r\nn.").cut).toBe("\r\n.");
  });

  test("a colour query ended by a new sequence goes; the new sequence stays", () => {
    expect(tap("\x1b]11;?\x1b[1mB").cut).toBe("\x1b[1mB");
  });

  test("a sequence that may still be a query holds output back from its ESC; once decided, nothing is held", () => {
    const t = new VtTap();
    t.feed(enc("ab\x1b["));
    expect(t.queryHold).toBe(2);
    t.feed(enc("6"));
    expect(t.queryHold).toBe(2);
    t.feed(enc("nxy\x1b]11;?\x1b"));
    // The OSC is decided; the ESC may be ST's.
    expect(t.queryHold).toBe(14);
    t.feed(enc("\\z"));
    expect(t.queryHold).toBeNull();
    expect(dec(t.queries.cut(enc("ab\x1b[6nxy\x1b]11;?\x1b\\z"), 0))).toBe("abxyz");
  });

  test(`an unfinished sequence is held for at most MAX_QUERY_BYTES (${MAX_QUERY_BYTES}); an image OSC is not`, () => {
    const t = new VtTap();
    // ESC ] 1337;File= is 12 bytes.
    t.feed(enc(`\x1b]1337;File=${"x".repeat(MAX_QUERY_BYTES - 13)}`));
    expect(t.queryHold).toBe(0);
    t.feed(enc("x"));
    expect(t.queryHold).toBeNull();
    const s = new VtTap();
    s.feed(enc("\x1b[38;5;1m\x1bP+q"));
    expect(s.queryHold).toBeNull();
  });

  test("feed(data, at) starts the offsets at `at`: a session restored from the end of its log", () => {
    const t = new VtTap();
    t.feed(enc("\x1b[c!"), 1000);
    expect(t.end).toBe(1004);
    expect(t.queries.completeFrom).toBe(1000);
    expect(dec(t.queries.cut(enc("\x1b[c!"), 1000))).toBe("!");
  });

  test("plain chunks the tap skips still count", () => {
    const t = new VtTap();
    t.feed(enc("plain text"));
    t.feed(enc("\x1b[5n"));
    expect(t.end).toBe(14);
    expect(dec(t.queries.cut(enc("plain text\x1b[5n"), 0))).toBe("plain text");
  });
});

describe("plain text", () => {
  test("nothing is made until somebody wants it, and nothing after the last one lets go", () => {
    const events: TapEvent[] = [];
    const t = new VtTap({ onEvent: (e) => events.push(e) });
    t.feed(enc("before\r\n"));
    const release = t.wantText();
    const again = t.wantText();
    t.feed(enc("\x1b[1mbold\x1b[0m\tx\r\n"));
    release();
    release();
    t.feed(enc("still\r\n"));
    again();
    t.feed(enc("after\r\n"));
    expect(events).toEqual([
      { type: "text", from: 8, to: 24, text: "bold\tx\n" },
      { type: "text", from: 24, to: 31, text: "still\n" },
    ]);
  });

  test("text made byte by byte is the text made whole, and what termd logs prints", () => {
    const input = "\x1b]2;t\x07\x1b[38;2;1;2;3mé\x1b[0m line\r\n10%\r20%\r\nnexx\bt\r";
    const text = (chunks: Uint8Array[]) => {
      let out = "";
      const t = new VtTap({ onEvent: (e) => e.type === "text" && (out += e.text) });
      t.wantText();
      for (const c of chunks) t.feed(c);
      return out;
    };
    const bytes = enc(input);
    const whole = text([bytes]);
    expect(text([...bytes].map((b) => new Uint8Array([b])))).toBe(whole);
    // The line still in progress is the stream's end's.
    expect(whole + "next").toBe(plainText(bytes));
    expect(whole).toBe("é line\n20%\n");
  });
});

describe("the unhandled-sequence log", () => {
  test("SGR, cursor movement, known modes, titles and charsets are not logged", () => {
    const { t } = tap(
      "\x1b[1;31mred\x1b[38:2::1:2:3m\x1b[0m\x1b[H\x1b[2J\x1b[K\x1b[?25l\x1b[?1049h\x1b(B\x1b7\x1b8\x1b]0;t\x07\x1b[6n\x1b[?2026$p\x1bP$qm\x1b\\\x1b[>1u\x1b[?u\x1b[>q\x1b]133;A\x07\x1b[4h",
    );
    expect(t.unhandled()).toEqual({ unhandled: [], dropped: 0 });
  });

  test("an unknown DEC mode, an unknown OSC and an unknown ESC are logged readably with their hex", () => {
    const { t } = tap("\x1b[?9999h\x1b]9999;x\x07\x1b]1337;SetMark\x1b\\\x1b#3\x1b[>4;2m");
    expect(t.unhandled().unhandled).toEqual([
      { sequence: "\\e[?9999h", raw_hex: "1b5b3f39393939" + "68" },
      { sequence: "\\e]9999;x\\a", raw_hex: "1b5d393939393b7807" },
      { sequence: "\\e]1337;SetMark\\e\\\\", raw_hex: "1b5d313333373b5365744d61726b1b5c" },
      { sequence: "\\e#3", raw_hex: "1b2333" },
      { sequence: "\\e[>4;2m", raw_hex: "1b5b3e343b326d" },
    ]);
  });

  test("a DECSET mixing known and unknown modes is logged whole", () => {
    expect(
      tap("\x1b[?1049;9999h")
        .t.unhandled()
        .unhandled.map((u) => u.sequence),
    ).toEqual(["\\e[?1049;9999h"]);
  });

  test("an unknown DCS is logged with its payload", () => {
    expect(tap("\x1bP+q544e\x1b\\").t.unhandled().unhandled).toEqual([
      { sequence: "\\eP+q544e\\e\\\\", raw_hex: "1b502b7135343465" + "1b5c" },
    ]);
  });

  test("the log keeps the newest N, counts the dropped, and clear empties it in the same step", () => {
    const { t } = tap("\x1b[?9001h\x1b[?9002h\x1b[?9003h\x1b[?9004h", { debugBuffer: 2 });
    expect(t.unhandled()).toEqual({
      unhandled: [
        { sequence: "\\e[?9003h", raw_hex: "1b5b3f3930303368" },
        { sequence: "\\e[?9004h", raw_hex: "1b5b3f3930303468" },
      ],
      dropped: 2,
    });
    expect(t.unhandled(true).unhandled).toHaveLength(2);
    expect(t.unhandled()).toEqual({ unhandled: [], dropped: 0 });
  });

  test("with a zero-sized log every sequence is only counted", () => {
    expect(tap("\x1b[?9001h", { debugBuffer: 0 }).t.unhandled()).toEqual({ unhandled: [], dropped: 1 });
  });
});

describe("readable", () => {
  test("writes ESC, BEL, backslash and other controls the way printf reads them", () => {
    expect(readable(enc("\x1b[?25l"))).toBe("\\e[?25l");
    expect(readable(enc("\x1b7"))).toBe("\\e7");
    expect(readable(enc("\x1b]1337;x\x07"))).toBe("\\e]1337;x\\a");
    expect(readable(enc("\x1b\\ \x01 é"))).toBe("\\e\\\\ \\x01 é");
  });
});

describe("skimming", () => {
  /** xorshift32: the same streams on every run. */
  function rng(seed: number) {
    let x = seed;
    return (n: number) => {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      return (x >>> 0) % n;
    };
  }
  const PIECES = [
    "plain text ",
    "\r\n",
    "é€😀",
    "\x1b[0m",
    "\x1b[38;5;196m",
    "\x1b[38:2:1:2:3m",
    "\x1b[1;31;42m",
    "\x1b[m",
    "\x1b[3;1H",
    "\x1b[?1049h",
    "\x1b[?1049l",
    "\x1b[?2004h",
    "\x1b[?9999h",
    "\x1b]2;a title\x07",
    "\x1b]0;other\x1b\\",
    "\x1b]7;file://host/tmp/x\x07",
    "\x1b]133;A\x07",
    "\x1b]133;D;3\x1b\\",
    "\x07",
    "\x1b[6n",
    "\x1b[c",
    "\x1b]11;?\x07",
    "\x1bP+q544e\x1b\\",
    "\x1b[>1u",
    "\x1b[<u",
    "\x1b=",
    "\x1b[?25l",
    "\x1b[",
    "\x1b",
    "\x18",
  ];

  test("SGR and plain text passed over, in chunks cut anywhere, leave the tap as a full parse does", () => {
    for (let seed = 1; seed <= 200; seed++) {
      const r = rng(seed * 2654435761);
      const input = enc(Array.from({ length: 60 }, () => PIECES[r(PIECES.length)]).join(""));
      const skimEvents: TapEvent[] = [];
      const fullEvents: TapEvent[] = [];
      const skimmed = new VtTap({ onEvent: (e) => skimEvents.push(e) });
      const full = new VtTap({ onEvent: (e) => e.type !== "text" && fullEvents.push(e) });
      full.wantText(); // text wanted: every byte goes through the parser
      for (let at = 0; at < input.length; ) {
        const to = Math.min(input.length, at + 1 + r(40));
        skimmed.feed(input.slice(at, to));
        full.feed(input.slice(at, to));
        expect(skimmed.queryHold).toBe(full.queryHold);
        at = to;
      }
      const strip = (es: TapEvent[]) => es.map((e) => (e.type === "mark" ? { ...e, mark: { ...e.mark, time: "" } } : e));
      expect(strip(skimEvents)).toEqual(strip(fullEvents));
      expect(skimmed.modes).toEqual(full.modes);
      expect(skimmed.unhandled()).toEqual(full.unhandled());
      expect([skimmed.title, skimmed.cwd, skimmed.bells, skimmed.lastExitCode, skimmed.end]).toEqual([
        full.title,
        full.cwd,
        full.bells,
        full.lastExitCode,
        full.end,
      ]);
      expect(dec(skimmed.queries.cut(input, 0))).toBe(dec(full.queries.cut(input, 0)));
    }
  });
});
