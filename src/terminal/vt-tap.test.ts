import { describe, expect, test } from "bun:test";
import { readable, VtTap, defaultModes, type TapEvent } from "./vt-tap.ts";

const enc = (s: string) => new TextEncoder().encode(s);

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
  expect([b.title, b.cwd, b.bells, b.lastExitCode]).toEqual([t.title, t.cwd, t.bells, t.lastExitCode]);
  return { t, events };
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
    expect(t.modes).toMatchObject({ application_keypad: false, application_cursor: false, cursor_visible: true, bracketed_paste: false, alternate: true });
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
    expect(tap("\x1b[?1049;9999h").t.unhandled().unhandled.map((u) => u.sequence)).toEqual(["\\e[?1049;9999h"]);
  });

  test("an unknown DCS is logged with its payload", () => {
    expect(tap("\x1bP+q544e\x1b\\").t.unhandled().unhandled).toEqual([{ sequence: "\\eP+q544e\\e\\\\", raw_hex: "1b502b7135343465" + "1b5c" }]);
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
