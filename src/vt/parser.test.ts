// The DEC/ANSI parser against vt100.net's state diagram. Tests are named after its transitions
// ("trans CSI_PARAM -> CSI_IGNORE on …"). Every example goes through parseAll(), which feeds the
// input whole, byte by byte and split in two at every position, and requires the same events
// each way: chunk boundaries must be invisible.
import { describe, expect, test } from "bun:test";
import {
  MAX_DCS_BYTES,
  MAX_INTERMEDIATES,
  MAX_OSC_BYTES,
  MAX_PARAMS,
  MAX_PARAM_VALUE,
  NoopPerformer,
  OMITTED,
  PRINT_BUFFER_SIZE,
  type Params,
  Parser,
  type ParserState,
  STATE_NAMES,
  codepointsToString,
} from "./index.ts";

type Event =
  | ["print", string]
  | ["execute", number]
  | ["csi", string, string, string, string] // marker, params, intermediates, final
  | ["esc", string, string] // intermediates, final
  | ["osc", string, "BEL" | "ST"]
  | ["dcsHook", string, string, string, string] // marker, params, intermediates, final
  | ["dcsPut", string] // bytes as a binary string
  | ["dcsUnhook", "cancelled" | "ended"];

/** Records events, merging consecutive print and dcsPut calls: how a run is split into calls
 * depends on the chunks, what it contains does not. */
class Recorder extends NoopPerformer {
  readonly events: Event[] = [];
  printCalls = 0;

  override print(codes: Uint32Array, start: number, end: number): void {
    this.printCalls++;
    const text = codepointsToString(codes, start, end);
    const last = this.events.at(-1);
    if (last?.[0] === "print") last[1] += text;
    else this.events.push(["print", text]);
  }
  override execute(code: number): void {
    this.events.push(["execute", code]);
  }
  override csi(params: Params, intermediates: string, final: string, marker: string): void {
    this.events.push(["csi", marker, params.toString(), intermediates, final]);
  }
  override esc(intermediates: string, final: string): void {
    this.events.push(["esc", intermediates, final]);
  }
  override osc(data: string, bellTerminated: boolean): void {
    this.events.push(["osc", data, bellTerminated ? "BEL" : "ST"]);
  }
  override dcsHook(params: Params, intermediates: string, final: string, marker: string): void {
    this.events.push(["dcsHook", marker, params.toString(), intermediates, final]);
  }
  override dcsPut(data: Uint8Array, start: number, end: number): void {
    let text = "";
    for (let i = start; i < end; i++) text += String.fromCharCode(data[i]!);
    const last = this.events.at(-1);
    if (last?.[0] === "dcsPut") last[1] += text;
    else this.events.push(["dcsPut", text]);
  }
  override dcsUnhook(cancelled: boolean): void {
    this.events.push(["dcsUnhook", cancelled ? "cancelled" : "ended"]);
  }
}

const enc = new TextEncoder();

/** Strings are UTF-8 encoded; number arrays are raw bytes (for ill-formed UTF-8). */
function bytes(...parts: (string | number[])[]): Uint8Array {
  const chunks = parts.map((p) => (typeof p === "string" ? enc.encode(p) : Uint8Array.from(p)));
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

function feed(chunks: Uint8Array[]): { events: Event[]; state: ParserState } {
  const recorder = new Recorder();
  const parser = new Parser(recorder);
  for (const c of chunks) parser.parse(c);
  return { events: recorder.events, state: parser.state };
}

/** Parses `input` whole and byte by byte (and, when short, split in two at every position);
 * asserts every way gives the same events and end state, and returns the events. */
function parseAll(...parts: (string | number[])[]): Event[] {
  const data = bytes(...parts);
  const whole = feed([data]);
  const single: Uint8Array[] = [];
  for (let i = 0; i < data.length; i++) single.push(data.subarray(i, i + 1));
  expect(feed(single)).toEqual(whole);
  if (data.length <= 512) {
    for (let cut = 1; cut < data.length; cut++) {
      expect(feed([data.subarray(0, cut), data.subarray(cut)])).toEqual(whole);
    }
  }
  return whole.events;
}

/** Like parseAll, for one byte-by-byte run over a large input (limits tests). */
function parseBig(data: Uint8Array): Event[] {
  const whole = new Recorder();
  new Parser(whole).parse(data);
  const single = new Recorder();
  const parser = new Parser(single);
  for (let i = 0; i < data.length; i++) parser.parse(data, i, i + 1);
  expect(single.events).toEqual(whole.events);
  return whole.events;
}

/** The state after `input`, by name. */
function stateAfter(input: string): string {
  const parser = new Parser(new NoopPerformer());
  parser.parse(enc.encode(input));
  return STATE_NAMES[parser.state];
}

const ESC = "\x1b";
const CSI = "\x1b[";
const OSC = "\x1b]";
const DCS = "\x1bP";
const ST = "\x1b\\";
const ST_EVENT: Event = ["esc", "", "\\"];

describe("anywhere", () => {
  test("trans anywhere -> GROUND on CAN executes it and abandons the CSI", () => {
    expect(parseAll(CSI, "1;2\x18x")).toEqual([
      ["execute", 0x18],
      ["print", "x"],
    ]);
  });

  test("trans anywhere -> GROUND on SUB executes it and abandons the ESC sequence", () => {
    expect(parseAll(ESC, "(\x1aB")).toEqual([
      ["execute", 0x1a],
      ["print", "B"],
    ]);
  });

  test("trans anywhere -> GROUND on CAN from every state", () => {
    const prefixes = [
      ESC,
      `${ESC}(`,
      CSI,
      `${CSI}1`,
      `${CSI} `,
      `${CSI}1?`,
      DCS,
      `${DCS}1`,
      `${DCS}$`,
      `${DCS}1?`,
      `${OSC}0;t`,
      `${ESC}_apc`,
    ];
    for (const prefix of prefixes) {
      expect(stateAfter(`${prefix}\x18`)).toBe("GROUND");
      expect(parseAll(prefix, "\x18x")).toEqual([
        ["execute", 0x18],
        ["print", "x"],
      ]);
    }
  });

  test("trans anywhere -> ESCAPE on ESC abandons a CSI and starts again", () => {
    expect(parseAll(CSI, "1;2", CSI, "3m")).toEqual([["csi", "", "3", "", "m"]]);
  });

  test("trans ESCAPE -> ESCAPE on ESC clears the intermediates collected so far", () => {
    expect(parseAll(ESC, "(", ESC, "7")).toEqual([["esc", "", "7"]]);
  });

  test("trans anywhere -> GROUND on CAN cancels an OSC string without dispatching it", () => {
    expect(parseAll(OSC, "0;title\x18x")).toEqual([
      ["execute", 0x18],
      ["print", "x"],
    ]);
  });

  test("trans anywhere -> GROUND on SUB unhooks a DCS as cancelled, then executes SUB", () => {
    expect(parseAll(DCS, "qabc\x1a")).toEqual([
      ["dcsHook", "", "", "", "q"],
      ["dcsPut", "abc"],
      ["dcsUnhook", "cancelled"],
      ["execute", 0x1a],
    ]);
  });
});

describe("GROUND", () => {
  test("a printable run arrives as one print call", () => {
    const recorder = new Recorder();
    new Parser(recorder).parse(enc.encode("hello, world"));
    expect(recorder.events).toEqual([["print", "hello, world"]]);
    expect(recorder.printCalls).toBe(1);
  });

  test("a run longer than PRINT_BUFFER_SIZE arrives whole in several calls", () => {
    const text = "x".repeat(PRINT_BUFFER_SIZE * 2 + 5);
    const recorder = new Recorder();
    new Parser(recorder).parse(enc.encode(text));
    expect(recorder.events).toEqual([["print", text]]);
    expect(recorder.printCalls).toBe(3);
  });

  test("GROUND executes C0 controls between printable runs", () => {
    expect(parseAll("ab\r\ncd\x07\x08\t")).toEqual([
      ["print", "ab"],
      ["execute", 0x0d],
      ["execute", 0x0a],
      ["print", "cd"],
      ["execute", 0x07],
      ["execute", 0x08],
      ["execute", 0x09],
    ]);
  });

  test("GROUND ignores DEL instead of printing it (departure)", () => {
    expect(parseAll("a\x7fb")).toEqual([["print", "ab"]]);
  });

  test("trans GROUND -> ESCAPE on ESC", () => {
    expect(stateAfter("abc\x1b")).toBe("ESCAPE");
  });

  test("GROUND decodes UTF-8 of every length", () => {
    const text = "é ✓ 漢字 😀 a\u0301";
    expect(parseAll(text)).toEqual([["print", text]]);
  });

  test("a UTF-8 character split between two chunks is printed once, whole", () => {
    const [a, b] = [
      [0xf0, 0x9f],
      [0x98, 0x80],
    ];
    expect(feed([Uint8Array.from(a), Uint8Array.from(b)]).events).toEqual([["print", "😀"]]);
    expect(parseAll(a, b)).toEqual([["print", "😀"]]);
  });

  test("ill-formed UTF-8 becomes U+FFFD exactly as a streaming TextDecoder replaces it", () => {
    const cases = [
      [0xff],
      [0x80, 0x41],
      [0xc0, 0xaf], // overlong
      [0xe0, 0x80, 0xaf], // overlong
      [0xed, 0xa0, 0x80], // surrogate
      [0xf4, 0x90, 0x80, 0x80], // past U+10FFFF
      [0xf0, 0x9f, 0x41], // truncated, then ASCII
      [0xe2, 0x9c, 0xe2, 0x9c, 0x93],
      [0x41, 0xc3], // the incomplete end waits for the next chunk
    ];
    for (const raw of cases) {
      const expected = new TextDecoder().decode(Uint8Array.from(raw), { stream: true });
      expect(parseAll(raw)).toEqual([["print", expected]]);
    }
  });

  test("bytes 0x80-0x9F are not C1 controls: 0x9B is no CSI (departure)", () => {
    expect(parseAll([0x9b], "1m", [0x9d], "0;t\x07")).toEqual([
      ["print", "\ufffd1m\ufffd0;t"],
      ["execute", 0x07],
    ]);
  });

  test("an incomplete UTF-8 character interrupted by a control byte becomes U+FFFD", () => {
    expect(parseAll([0xe2, 0x9c], "\r")).toEqual([
      ["print", "\ufffd"],
      ["execute", 0x0d],
    ]);
    expect(parseAll([0xe2], `${ESC}7`)).toEqual([
      ["print", "\ufffd"],
      ["esc", "", "7"],
    ]);
  });
});

describe("ESCAPE and ESCAPE_INTERMEDIATE", () => {
  test("trans ESCAPE -> GROUND on 30-7E dispatches esc_dispatch", () => {
    expect(parseAll(ESC, "7", ESC, "c", ESC, "=", ESC, "M")).toEqual([
      ["esc", "", "7"],
      ["esc", "", "c"],
      ["esc", "", "="],
      ["esc", "", "M"],
    ]);
  });

  test("trans ESCAPE -> ESCAPE_INTERMEDIATE on 20-2F collects, then dispatches on the final", () => {
    expect(stateAfter(`${ESC}(`)).toBe("ESCAPE_INTERMEDIATE");
    expect(parseAll(ESC, "(B", ESC, "#8", ESC, " F")).toEqual([
      ["esc", "(", "B"],
      ["esc", "#", "8"],
      ["esc", " ", "F"],
    ]);
  });

  test(`ESCAPE_INTERMEDIATE collects up to MAX_INTERMEDIATES (${MAX_INTERMEDIATES})`, () => {
    expect(parseAll(ESC, "$(B")).toEqual([["esc", "$(", "B"]]);
  });

  test("an ESC sequence past MAX_INTERMEDIATES is not dispatched", () => {
    expect(parseAll(ESC, "$()Bx")).toEqual([["print", "x"]]);
  });

  test("ESCAPE and ESCAPE_INTERMEDIATE execute C0 controls without leaving the sequence", () => {
    expect(parseAll(ESC, "\x07(\rB")).toEqual([
      ["execute", 0x07],
      ["execute", 0x0d],
      ["esc", "(", "B"],
    ]);
  });

  test("ESCAPE and ESCAPE_INTERMEDIATE ignore DEL", () => {
    expect(parseAll(ESC, "\x7f(\x7fB")).toEqual([["esc", "(", "B"]]);
  });

  test("trans ESCAPE -> CSI_ENTRY, OSC_STRING, DCS_ENTRY, SOS_PM_APC_STRING", () => {
    expect(stateAfter(CSI)).toBe("CSI_ENTRY");
    expect(stateAfter(OSC)).toBe("OSC_STRING");
    expect(stateAfter(DCS)).toBe("DCS_ENTRY");
    for (const c of "X^_") expect(stateAfter(`${ESC}${c}`)).toBe("SOS_PM_APC_STRING");
  });
});

describe("CSI", () => {
  test("trans CSI_ENTRY -> GROUND on a final dispatches with no params", () => {
    expect(parseAll(CSI, "m")).toEqual([["csi", "", "", "", "m"]]);
  });

  test("trans CSI_ENTRY -> CSI_PARAM on a digit or ';'", () => {
    expect(stateAfter(`${CSI}1`)).toBe("CSI_PARAM");
    expect(parseAll(CSI, "12;34H", CSI, ";5H", CSI, ";m")).toEqual([
      ["csi", "", "12;34", "", "H"],
      ["csi", "", ";5", "", "H"],
      ["csi", "", ";", "", "m"],
    ]);
  });

  test("trans CSI_ENTRY -> CSI_PARAM on each private marker ? > < =", () => {
    expect(parseAll(CSI, "?1049h", CSI, ">4;2m", CSI, "<0;10;20M", CSI, "=1u")).toEqual([
      ["csi", "?", "1049", "", "h"],
      ["csi", ">", "4;2", "", "m"],
      ["csi", "<", "0;10;20", "", "M"],
      ["csi", "=", "1", "", "u"],
    ]);
  });

  test("trans CSI_ENTRY -> CSI_INTERMEDIATE on 20-2F", () => {
    expect(stateAfter(`${CSI}!`)).toBe("CSI_INTERMEDIATE");
    expect(parseAll(CSI, "!p")).toEqual([["csi", "", "", "!", "p"]]);
  });

  test("trans CSI_PARAM -> CSI_INTERMEDIATE on 20-2F, then GROUND on the final", () => {
    expect(parseAll(CSI, "2 q", CSI, "?2004$p", CSI, "1 $q")).toEqual([
      ["csi", "", "2", " ", "q"],
      ["csi", "?", "2004", "$", "p"],
      ["csi", "", "1", " $", "q"],
    ]);
  });

  test("trans CSI_PARAM -> CSI_IGNORE on a private marker after a parameter", () => {
    expect(stateAfter(`${CSI}1?`)).toBe("CSI_IGNORE");
    expect(parseAll(CSI, "1?hx")).toEqual([["print", "x"]]);
  });

  test("trans CSI_INTERMEDIATE -> CSI_IGNORE on 30-3F", () => {
    expect(stateAfter(`${CSI} 1`)).toBe("CSI_IGNORE");
    expect(parseAll(CSI, " 1qx")).toEqual([["print", "x"]]);
  });

  test("trans CSI_IGNORE -> GROUND on 40-7E without dispatching", () => {
    expect(stateAfter(`${CSI}1?;2 h`)).toBe("GROUND");
    expect(parseAll(CSI, "1?;2 hx")).toEqual([["print", "x"]]);
  });

  test("C0 controls inside a CSI are executed without ending it", () => {
    expect(parseAll(CSI, "\x071\r;2\nH")).toEqual([
      ["execute", 0x07],
      ["execute", 0x0d],
      ["execute", 0x0a],
      ["csi", "", "1;2", "", "H"],
    ]);
  });

  test("CSI_IGNORE executes C0 controls too", () => {
    expect(parseAll(CSI, "1?\x07hx")).toEqual([
      ["execute", 0x07],
      ["print", "x"],
    ]);
  });

  test("DEL inside a CSI is ignored", () => {
    expect(parseAll(CSI, "\x7f1\x7f;2 \x7fq")).toEqual([["csi", "", "1;2", " ", "q"]]);
  });

  test("bytes 0x80-0xFF inside a CSI are ignored, not taken as GL (departure)", () => {
    expect(parseAll(CSI, "1é;2H")).toEqual([["csi", "", "1;2", "", "H"]]);
  });

  test("colon sub-parameters are kept apart from parameters (departure)", () => {
    expect(parseAll(CSI, "38:2::255:128:0;1m", CSI, ":3m", CSI, "4:3m")).toEqual([
      ["csi", "", "38:2::255:128:0;1", "", "m"],
      ["csi", "", ":3", "", "m"],
      ["csi", "", "4:3", "", "m"],
    ]);
  });

  test("Params reads parameters, defaults and sub-parameters", () => {
    const seen: Record<string, unknown>[] = [];
    class Capture extends NoopPerformer {
      override csi(params: Params): void {
        seen.push({
          length: params.length,
          first: params.get(0, 1),
          second: params.get(1, 1),
          third: params.get(2, 1),
          sub0: params.subParams(0),
          has0: params.hasSubParams(0),
          has1: params.hasSubParams(1),
        });
      }
    }
    const parser = new Parser(new Capture());
    parser.parse(enc.encode(`${CSI}38:2::255:128:0;0m${CSI};7H${CSI}m`));
    expect(seen).toEqual([
      { length: 2, first: 38, second: 0, third: 1, sub0: [2, OMITTED, 255, 128, 0], has0: true, has1: false },
      { length: 2, first: 1, second: 7, third: 1, sub0: [], has0: false, has1: false },
      { length: 0, first: 1, second: 1, third: 1, sub0: [], has0: false, has1: false },
    ]);
  });

  test(`a CSI with MAX_PARAMS (${MAX_PARAMS}) parameters is dispatched with all of them`, () => {
    const params = Array.from({ length: MAX_PARAMS }, (_, i) => i + 1).join(";");
    expect(parseAll(CSI, `${params}m`)).toEqual([["csi", "", params, "", "m"]]);
  });

  test("a CSI with one field past MAX_PARAMS is ignored whole", () => {
    const params = Array.from({ length: MAX_PARAMS + 1 }, (_, i) => i + 1).join(";");
    expect(stateAfter(`${CSI}${params}`)).toBe("CSI_IGNORE");
    expect(parseAll(CSI, `${params}mx`)).toEqual([["print", "x"]]);
    // Sub-parameters count as fields.
    const subs = Array.from({ length: MAX_PARAMS }, () => "1").join(":");
    expect(parseAll(CSI, `${subs};1mx`)).toEqual([["print", "x"]]);
  });

  test("a parameter value past MAX_PARAM_VALUE saturates instead of overflowing", () => {
    expect(parseAll(CSI, "99999999999999999999;2147483647A")).toEqual([["csi", "", `${MAX_PARAM_VALUE};${MAX_PARAM_VALUE}`, "", "A"]]);
  });

  test("a CSI past MAX_INTERMEDIATES is ignored whole", () => {
    expect(parseAll(CSI, "1 $q")).toEqual([["csi", "", "1", " $", "q"]]);
    expect(stateAfter(`${CSI}1 $!`)).toBe("CSI_IGNORE");
    expect(parseAll(CSI, "1 $!qx")).toEqual([["print", "x"]]);
  });

  test("a colourful line: SGR, text, cursor moves and erase in order", () => {
    expect(parseAll(CSI, "5;1H", CSI, "1;31mred", CSI, "0m ok", CSI, "K\r\n")).toEqual([
      ["csi", "", "5;1", "", "H"],
      ["csi", "", "1;31", "", "m"],
      ["print", "red"],
      ["csi", "", "0", "", "m"],
      ["print", " ok"],
      ["csi", "", "", "", "K"],
      ["execute", 0x0d],
      ["execute", 0x0a],
    ]);
  });
});

describe("OSC_STRING", () => {
  test("trans ESCAPE -> OSC_STRING on ']', ended by BEL (departure, as xterm)", () => {
    expect(parseAll(OSC, "0;title\x07x")).toEqual([
      ["osc", "0;title", "BEL"],
      ["print", "x"],
    ]);
  });

  test("an OSC string ended by ST dispatches, then ESC \\ arrives as esc_dispatch", () => {
    expect(parseAll(OSC, "2;title", ST, "x")).toEqual([["osc", "2;title", "ST"], ST_EVENT, ["print", "x"]]);
  });

  test("an OSC string ends at any ESC, which then starts the next sequence", () => {
    expect(parseAll(OSC, "7;file:///tmp", CSI, "1m")).toEqual([
      ["osc", "7;file:///tmp", "ST"],
      ["csi", "", "1", "", "m"],
    ]);
  });

  test("an OSC payload is decoded as UTF-8", () => {
    expect(parseAll(OSC, "0;héllo ✓ 😀", [0xff], "\x07")).toEqual([["osc", "0;héllo ✓ 😀\ufffd", "BEL"]]);
  });

  test("an empty OSC string is dispatched empty", () => {
    expect(parseAll(OSC, "\x07")).toEqual([["osc", "", "BEL"]]);
  });

  test("OSC_STRING ignores C0 controls other than BEL, CAN, SUB and ESC", () => {
    expect(parseAll(OSC, "0;a\r\nb\x00c\x07")).toEqual([["osc", "0;abc", "BEL"]]);
  });

  test(`an OSC string of exactly MAX_OSC_BYTES (${MAX_OSC_BYTES}) is dispatched`, () => {
    const payload = "8;;".padEnd(MAX_OSC_BYTES, "a");
    const events = parseBig(bytes(OSC, payload, "\x07"));
    expect(events).toEqual([["osc", payload, "BEL"]]);
  });

  test("an OSC string past MAX_OSC_BYTES is dropped whole, and parsing goes on after it", () => {
    const payload = "8;;".padEnd(MAX_OSC_BYTES + 1, "a");
    expect(parseBig(bytes(OSC, payload, "\x07x"))).toEqual([["print", "x"]]);
    expect(parseBig(bytes(OSC, payload, ST, "x"))).toEqual([ST_EVENT, ["print", "x"]]);
  });
});

describe("DCS", () => {
  test("trans DCS_ENTRY -> DCS_PASSTHROUGH on a final hooks; put; ST unhooks", () => {
    expect(parseAll(DCS, "$qm", ST)).toEqual([["dcsHook", "", "", "$", "q"], ["dcsPut", "m"], ["dcsUnhook", "ended"], ST_EVENT]);
  });

  test("trans DCS_ENTRY -> DCS_PARAM on a digit or a private marker", () => {
    expect(stateAfter(`${DCS}1`)).toBe("DCS_PARAM");
    expect(stateAfter(`${DCS}>`)).toBe("DCS_PARAM");
    expect(parseAll(DCS, "1;2|abc", ST, DCS, ">|xterm(1)", ST)).toEqual([
      ["dcsHook", "", "1;2", "", "|"],
      ["dcsPut", "abc"],
      ["dcsUnhook", "ended"],
      ST_EVENT,
      ["dcsHook", ">", "", "", "|"],
      ["dcsPut", "xterm(1)"],
      ["dcsUnhook", "ended"],
      ST_EVENT,
    ]);
  });

  test("trans DCS_PARAM -> DCS_INTERMEDIATE on 20-2F", () => {
    expect(stateAfter(`${DCS}1$`)).toBe("DCS_INTERMEDIATE");
    expect(parseAll(DCS, "1$rstatus", ST)).toEqual([
      ["dcsHook", "", "1", "$", "r"],
      ["dcsPut", "status"],
      ["dcsUnhook", "ended"],
      ST_EVENT,
    ]);
  });

  test("trans DCS_PARAM -> DCS_IGNORE on a private marker after a parameter", () => {
    expect(stateAfter(`${DCS}1>`)).toBe("DCS_IGNORE");
    expect(parseAll(DCS, "1>qabc", ST, "x")).toEqual([ST_EVENT, ["print", "x"]]);
  });

  test("trans DCS_INTERMEDIATE -> DCS_IGNORE on 30-3F", () => {
    expect(stateAfter(`${DCS}$1`)).toBe("DCS_IGNORE");
    expect(parseAll(DCS, "$1qabc", ST, "x")).toEqual([ST_EVENT, ["print", "x"]]);
  });

  test("DCS_ENTRY, DCS_PARAM and DCS_INTERMEDIATE ignore C0 controls instead of executing them", () => {
    expect(parseAll(DCS, "\r1\n;2\x07$\tqx", ST)).toEqual([
      ["dcsHook", "", "1;2", "$", "q"],
      ["dcsPut", "x"],
      ["dcsUnhook", "ended"],
      ST_EVENT,
    ]);
  });

  test("DCS_PASSTHROUGH puts C0 controls and raw UTF-8 bytes, and ignores DEL", () => {
    expect(parseAll(DCS, "qa\r\nb\x7fc\x07é", ST)).toEqual([
      ["dcsHook", "", "", "", "q"],
      ["dcsPut", "a\r\nbc\x07\xc3\xa9"],
      ["dcsUnhook", "ended"],
      ST_EVENT,
    ]);
  });

  test("dcsPut gets the payload as slices of the input, not byte by byte", () => {
    const recorder = new Recorder();
    let puts = 0;
    recorder.dcsPut = () => void puts++;
    new Parser(recorder).parse(enc.encode(`${DCS}q${"#0;2;0;0;0".repeat(100)}${ST}`));
    expect(puts).toBe(1);
  });

  test("a DCS with one field past MAX_PARAMS is never hooked", () => {
    const params = Array.from({ length: MAX_PARAMS + 1 }, () => "1").join(";");
    expect(stateAfter(`${DCS}${params}`)).toBe("DCS_IGNORE");
    expect(parseAll(DCS, `${params}qabc`, ST, "x")).toEqual([ST_EVENT, ["print", "x"]]);
  });

  test("a DCS past MAX_INTERMEDIATES is never hooked", () => {
    expect(parseAll(DCS, "1 $!qabc", ST, "x")).toEqual([ST_EVENT, ["print", "x"]]);
  });

  test(`a DCS of exactly MAX_DCS_BYTES (${MAX_DCS_BYTES}) ends normally`, () => {
    const payload = "a".repeat(MAX_DCS_BYTES);
    expect(parseBig(bytes(DCS, "q", payload, ST))).toEqual([
      ["dcsHook", "", "", "", "q"],
      ["dcsPut", payload],
      ["dcsUnhook", "ended"],
      ST_EVENT,
    ]);
  });

  test("a DCS past MAX_DCS_BYTES is unhooked as cancelled and the rest ignored", () => {
    const payload = "a".repeat(MAX_DCS_BYTES + 10);
    expect(parseBig(bytes(DCS, "q", payload, ST, "x"))).toEqual([
      ["dcsHook", "", "", "", "q"],
      ["dcsPut", payload.slice(0, MAX_DCS_BYTES)],
      ["dcsUnhook", "cancelled"],
      ST_EVENT,
      ["print", "x"],
    ]);
  });
});

describe("SOS_PM_APC_STRING", () => {
  test("SOS, PM and APC strings are ignored up to ST", () => {
    expect(parseAll(ESC, "Xsos", ST, ESC, "^pm", ST, ESC, "_Gf=100;AAAA", ST, "x")).toEqual([ST_EVENT, ST_EVENT, ST_EVENT, ["print", "x"]]);
  });

  test("SOS_PM_APC_STRING ignores C0 controls, BEL included", () => {
    expect(parseAll(ESC, "_a\x07b\r\n", ST)).toEqual([ST_EVENT]);
  });
});

describe("stream offsets", () => {
  /** Each dispatch as [what, sequenceStart, position], fed in `chunks`, some of which are
   * skipped as a caller that knows them to be plain text would (offset moved on by hand). */
  function positions(chunks: string[], skip: (chunk: string) => boolean = () => false): [string, number, number][] {
    const out: [string, number, number][] = [];
    class At extends NoopPerformer {
      override execute(code: number): void {
        out.push([`execute ${code}`, parser.sequenceStart, parser.position]);
      }
      override csi(_p: Params, _i: string, final: string): void {
        out.push([`csi ${final}`, parser.sequenceStart, parser.position]);
      }
      override esc(_i: string, final: string): void {
        out.push([`esc ${final}`, parser.sequenceStart, parser.position]);
      }
      override osc(data: string): void {
        out.push([`osc ${data}`, parser.sequenceStart, parser.position]);
      }
      override dcsUnhook(cancelled: boolean): void {
        out.push([`unhook ${cancelled}`, parser.sequenceStart, parser.position]);
      }
    }
    const parser = new Parser(new At());
    for (const c of chunks) {
      const data = enc.encode(c);
      if (skip(c)) parser.offset += data.length;
      else parser.parse(data);
    }
    return out;
  }

  const input = `ab${CSI}6n\r${OSC}10;?\x07x${OSC}2;t${ST}${DCS}$qm${ST}${CSI}1\r2H`;
  const expected: [string, number, number][] = [
    ["csi n", 2, 5],
    ["execute 13", -1, 6],
    ["osc 10;?", 7, 13],
    ["osc 2;t", 15, 20],
    ["esc \\", 20, 21],
    ["unhook false", 22, 27],
    ["esc \\", 27, 28],
    ["execute 13", 29, 32],
    ["csi H", 29, 34],
  ];

  test("position is the byte that caused a call, sequenceStart the ESC that began its sequence", () => {
    expect(positions([input])).toEqual(expected);
  });

  test("offsets are the same whole, byte by byte and split at every point", () => {
    const bytesOf = [...enc.encode(input)].map((b) => String.fromCharCode(b));
    expect(positions(bytesOf)).toEqual(expected);
    for (let cut = 1; cut < input.length; cut++) expect(positions([input.slice(0, cut), input.slice(cut)])).toEqual(expected);
  });

  test("bytes a caller skips by moving offset on still count", () => {
    expect(positions(["plain ", `${CSI}c`], (c) => !c.includes(ESC))).toEqual([["csi c", 6, 8]]);
  });

  test("reset() ends the sequence in progress", () => {
    const parser = new Parser(new NoopPerformer());
    parser.parse(enc.encode(`x${CSI}1`));
    expect(parser.sequenceStart).toBe(1);
    parser.reset();
    expect(parser.sequenceStart).toBe(-1);
    expect(parser.offset).toBe(4);
  });
});

describe("the parser as a whole", () => {
  test("parse(data, start, end) reads only that range", () => {
    const recorder = new Recorder();
    const parser = new Parser(recorder);
    parser.parse(enc.encode("xx\x1b[1mab\x1b7yy"), 2, 9);
    expect(recorder.events).toEqual([
      ["csi", "", "1", "", "m"],
      ["print", "ab"],
    ]);
    expect(STATE_NAMES[parser.state]).toBe("ESCAPE");
  });

  test("reset() forgets a partial sequence and a partial character without reporting them", () => {
    const recorder = new Recorder();
    const parser = new Parser(recorder);
    parser.parse(bytes(DCS, "qab"));
    recorder.events.length = 0;
    parser.reset();
    expect(STATE_NAMES[parser.state]).toBe("GROUND");
    parser.parse(bytes([0xe2, 0x9c]));
    parser.reset();
    parser.parse(bytes("1m"));
    expect(recorder.events).toEqual([["print", "1m"]]);
  });

  test("a shell prompt with title, marks, colours and a hyperlink", () => {
    const input =
      `${OSC}0;user@host: ~\x07${OSC}133;A${ST}${CSI}1;32muser${CSI}0m:` + `${OSC}8;;file:///home${ST}~${OSC}8;;${ST}$ ${OSC}133;B${ST}`;
    expect(parseAll(input)).toEqual([
      ["osc", "0;user@host: ~", "BEL"],
      ["osc", "133;A", "ST"],
      ST_EVENT,
      ["csi", "", "1;32", "", "m"],
      ["print", "user"],
      ["csi", "", "0", "", "m"],
      ["print", ":"],
      ["osc", "8;;file:///home", "ST"],
      ST_EVENT,
      ["print", "~"],
      ["osc", "8;;", "ST"],
      ST_EVENT,
      ["print", "$ "],
      ["osc", "133;B", "ST"],
      ST_EVENT,
    ]);
  });

  test("random bytes give the same events however they are chunked, and never throw", () => {
    let seed = 7;
    const rand = (n: number): number => {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
      return seed % n;
    };
    // Weighted towards the bytes that steer the machine, so every state is visited.
    const alphabet = [
      0x1b, 0x1b, 0x5b, 0x5d, 0x50, 0x5f, 0x5c, 0x07, 0x18, 0x3b, 0x3a, 0x3f, 0x20, 0x24, 0x31, 0x32, 0x6d, 0x71, 0x41, 0x7f, 0x0d, 0xc3,
      0xa9, 0xe2, 0x9c, 0x93, 0xf0, 0xff,
    ];
    for (let round = 0; round < 200; round++) {
      const data = new Uint8Array(300);
      for (let i = 0; i < data.length; i++) {
        data[i] = rand(4) === 0 ? rand(256) : alphabet[rand(alphabet.length)]!;
      }
      const whole = feed([data]);
      const chunks: Uint8Array[] = [];
      for (let at = 0; at < data.length; ) {
        const size = 1 + rand(20);
        chunks.push(data.subarray(at, at + size));
        at += size;
      }
      expect(feed(chunks)).toEqual(whole);
    }
  });
});
