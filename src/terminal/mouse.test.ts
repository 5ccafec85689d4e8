import { describe, expect, test } from "bun:test";
import { TermdError } from "./errors.ts";
import { encodeMouse as encodeBytes, type MouseModes } from "./mouse.ts";

/** The report's bytes as a string of one character per byte, to compare with escapes. */
const encodeMouse = (...a: Parameters<typeof encodeBytes>) => Buffer.from(encodeBytes(...a)).toString("latin1");

const SIZE = { rows: 24, cols: 80 };
const SGR_1000: MouseModes = { mouse: "vt200", mouse_sgr: true };
const LEGACY_1000: MouseModes = { mouse: "vt200", mouse_sgr: false };

function code(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    return e instanceof TermdError ? e.code : String(e);
  }
  return undefined;
}

describe("encodeMouse", () => {
  test("a click in SGR mode is a press and a release, 1-based on the wire", () => {
    expect(encodeMouse({ action: "click", row: 0, col: 0 }, SGR_1000, SIZE)).toBe("\x1b[<0;1;1M\x1b[<0;1;1m");
    expect(encodeMouse({ action: "click", row: 4, col: 9, button: "right" }, SGR_1000, SIZE)).toBe("\x1b[<2;10;5M\x1b[<2;10;5m");
  });

  test("the legacy encoding adds 32 to each value and releases with button 3", () => {
    expect(encodeMouse({ action: "click", row: 4, col: 9, button: "middle" }, LEGACY_1000, SIZE)).toBe("\x1b[M!*%\x1b[M#*%");
  });

  test("modifiers add shift 4, alt 8, ctrl 16; X10 mode hears presses only and no modifiers", () => {
    expect(encodeMouse({ action: "press", row: 0, col: 0, ctrl: true, shift: true }, SGR_1000, SIZE)).toBe("\x1b[<20;1;1M");
    expect(encodeMouse({ action: "click", row: 0, col: 0, alt: true }, { mouse: "x10", mouse_sgr: false }, SIZE)).toBe("\x1b[M !!");
  });

  test("scroll is one wheel press per notch, 64 up and 65 down", () => {
    expect(encodeMouse({ action: "scroll", row: 1, col: 2, direction: "down", count: 2 }, SGR_1000, SIZE)).toBe(
      "\x1b[<65;3;2M\x1b[<65;3;2M",
    );
    expect(encodeMouse({ action: "scroll", row: 1, col: 2, direction: "up" }, LEGACY_1000, SIZE)).toBe('\x1b[M`#"');
  });

  test("a drag reports motion (button + 32) through each cell in mode 1002, and only its ends in mode 1000", () => {
    const drag = { action: "drag", from: { row: 0, col: 0 }, to: { row: 0, col: 2 } } as const;
    expect(encodeMouse(drag, { mouse: "drag", mouse_sgr: true }, SIZE)).toBe("\x1b[<0;1;1M\x1b[<32;2;1M\x1b[<32;3;1M\x1b[<0;3;1m");
    expect(encodeMouse(drag, SGR_1000, SIZE)).toBe("\x1b[<0;1;1M\x1b[<0;3;1m");
  });

  test("motion with no button is heard in mode 1003 only", () => {
    expect(encodeMouse({ action: "move", row: 2, col: 3 }, { mouse: "any", mouse_sgr: true }, SIZE)).toBe("\x1b[<35;4;3M");
    expect(code(() => encodeMouse({ action: "move", row: 2, col: 3 }, { mouse: "drag", mouse_sgr: true }, SIZE))).toBe("MOUSE_NOT_ENABLED");
  });

  test("a program that asked for no mouse reporting gets none: MOUSE_NOT_ENABLED says so", () => {
    let err: unknown;
    try {
      encodeMouse({ action: "click", row: 0, col: 0 }, { mouse: "none", mouse_sgr: true }, SIZE);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TermdError);
    expect((err as TermdError).code).toBe("MOUSE_NOT_ENABLED");
    expect((err as TermdError).message).toContain("asked for no mouse reporting");
  });

  test("a point off the screen, or past what the legacy encoding can say, is a bad argument", () => {
    expect(code(() => encodeMouse({ action: "click", row: 24, col: 0 }, SGR_1000, SIZE))).toBe("BAD_ARGUMENT");
    const wide = { rows: 300, cols: 300 };
    expect(code(() => encodeMouse({ action: "click", row: 0, col: 223 }, LEGACY_1000, wide))).toBe("BAD_ARGUMENT");
    expect(encodeMouse({ action: "click", row: 0, col: 222 }, LEGACY_1000, wide)).toBe("\x1b[M \xff!\x1b[M#\xff!");
    expect(encodeMouse({ action: "press", row: 299, col: 299 }, SGR_1000, wide)).toBe("\x1b[<0;300;300M");
  });
});
