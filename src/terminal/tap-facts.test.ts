import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { TapFacts, type TapReading } from "./tap-facts.ts";
import { VtTap } from "./vt-tap.ts";

const FIXTURES = join(import.meta.dir, "../../test/fixtures/tap");

/** Everything a reader of the facts sees, marks with their times (the same objects travel). */
function reading(t: TapReading) {
  return {
    title: t.title,
    cwd: t.cwd,
    bells: t.bells,
    marks: [...t.marks],
    lastExitCode: t.lastExitCode,
    running: t.running,
    modes: t.modes,
    end: t.end,
    hold: t.queryHold,
    unhandled: t.unhandled(),
    completeFrom: t.queries.completeFrom,
  };
}

/** A tap fed `bytes` in pieces, and facts elsewhere that take only its updates. */
function mirrored(bytes: Uint8Array, piece: number, debugBuffer?: number) {
  const tap = new VtTap({ debugBuffer });
  const facts = new TapFacts({ debugBuffer });
  for (let at = 0; at < bytes.length; at += piece) facts.take(tap.feed(bytes.subarray(at, at + piece)));
  return { tap, facts };
}

describe("TapFacts fed a tap's updates reads what the tap read", () => {
  for (const name of ["bash", "vim", "less"]) {
    test(`a recorded ${name} session, whole, in 64-byte reads and a byte at a time`, () => {
      const bytes = readFileSync(join(FIXTURES, `${name}.bin`));
      for (const piece of [bytes.length, 64, 1]) {
        const { tap, facts } = mirrored(bytes, piece);
        expect(reading(facts)).toEqual(reading(tap));
        // The attach stream cuts the same queries from either.
        expect(facts.queries.cut(bytes, 0)).toEqual(tap.queries.cut(bytes, 0));
      }
    });
  }

  test("an unhandled log smaller than a chunk's sequences keeps the newest and counts the rest as dropped", () => {
    const bytes = new TextEncoder().encode("\x1b[?1337h\x1b[?1338h\x1b[?1339h\x1b]1337;x\x07");
    const { tap, facts } = mirrored(bytes, bytes.length, 2);
    expect(facts.unhandled()).toEqual(tap.unhandled());
    expect(facts.unhandled().dropped).toBe(2);
    expect(facts.unhandled(true).unhandled.map((u) => u.sequence)).toEqual(["\\e[?1339h", "\\e]1337;x\\a"]);
    expect(facts.unhandled()).toEqual({ unhandled: [], dropped: 0 });
  });

  test("a stream joined late (a restored log's tail): the queries before it count as unknown on both sides", () => {
    const tap = new VtTap();
    const facts = new TapFacts();
    facts.take(tap.feed(new TextEncoder().encode("x\x1b[6ny"), 1000));
    expect(facts.queries.completeFrom).toBe(1000);
    expect(reading(facts)).toEqual(reading(tap));
  });

  test("a query cut by a read's end is held, then cut whole from the attach stream", () => {
    const bytes = new TextEncoder().encode("a\x1b]11;?\x1b\\b");
    const tap = new VtTap();
    const facts = new TapFacts();
    facts.take(tap.feed(bytes.subarray(0, 5)));
    expect(facts.queryHold).toBe(1);
    facts.take(tap.feed(bytes.subarray(5)));
    expect(facts.queryHold).toBeNull();
    expect(new TextDecoder().decode(facts.queries.cut(bytes, 0))).toBe("ab");
  });

  test("a tap resumed from a saved state goes on as the first would have (a program started again on another thread)", () => {
    const bytes = readFileSync(join(FIXTURES, "bash.bin"));
    // A program's end leaves no sequence open: cut where the parser is on the ground.
    const half = bytes.indexOf("odd\r\n") + 5;
    const first = new VtTap();
    first.feed(bytes.subarray(0, half));
    const whole = new VtTap();
    whole.feed(bytes.subarray(0, half));
    const second = new VtTap({ resume: first.save() });
    second.feed(bytes.subarray(half));
    whole.feed(bytes.subarray(half));
    // Each tap timed the marks it read itself.
    const timeless = (t: VtTap) => {
      const { marks, ...state } = t.save();
      return { ...state, marks: marks.map(({ time: _, ...m }) => m), modes: t.modes };
    };
    expect(timeless(second)).toEqual(timeless(whole));
  });

  test("wanting text tells the tap that parses, once on the first taker and once after the last", () => {
    const told: boolean[] = [];
    const facts = new TapFacts({ onTextWanted: (on) => told.push(on) });
    const a = facts.wantText();
    const b = facts.wantText();
    expect(facts.wantsText).toBe(true);
    a();
    a();
    expect(told).toEqual([true]);
    b();
    expect(told).toEqual([true, false]);
    expect(facts.wantsText).toBe(false);
  });
});
