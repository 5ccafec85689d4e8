import { describe, expect, test } from "bun:test";
import { TermdError } from "./errors.ts";
import { encodeKey, encodeKeys } from "./keys.ts";

const normal = { applicationCursor: false };
const app = { applicationCursor: true };
const key = (t: string) => encodeKey(t, normal);

describe("canonical key names", () => {
  test("the plain keys encode as the bytes a terminal sends", () => {
    expect(key("Enter")).toBe("\r");
    expect(key("Escape")).toBe("\x1b");
    expect(key("Tab")).toBe("\t");
    expect(key("Backspace")).toBe("\x7f");
    expect(key("Space")).toBe(" ");
    expect(key("Insert")).toBe("\x1b[2~");
    expect(key("Delete")).toBe("\x1b[3~");
    expect(key("PageUp")).toBe("\x1b[5~");
    expect(key("PageDown")).toBe("\x1b[6~");
  });

  test("cursor keys use CSI in normal cursor mode", () => {
    expect(key("Up")).toBe("\x1b[A");
    expect(key("Down")).toBe("\x1b[B");
    expect(key("Right")).toBe("\x1b[C");
    expect(key("Left")).toBe("\x1b[D");
    expect(key("Home")).toBe("\x1b[H");
    expect(key("End")).toBe("\x1b[F");
  });

  test("function keys follow xterm: SS3 for F1-F4, CSI n ~ from F5", () => {
    expect(key("F1")).toBe("\x1bOP");
    expect(key("F4")).toBe("\x1bOS");
    expect(key("F5")).toBe("\x1b[15~");
    expect(key("F12")).toBe("\x1b[24~");
  });

  test("names are case-insensitive", () => {
    expect(key("enter")).toBe("\r");
    expect(key("PAGEDOWN")).toBe("\x1b[6~");
  });

  test("a single character is sent as itself", () => {
    expect(key("a")).toBe("a");
    expect(key("é")).toBe("é");
  });

  test("a list of tokens encodes to the concatenation of each", () => {
    expect(encodeKeys(["i", "Escape", ":", "Enter"], normal)).toBe("i\x1b:\r");
  });
});

describe("tmux aliases", () => {
  test("C-c is Ctrl+C and M-x is Alt+x", () => {
    expect(key("C-c")).toBe("\x03");
    expect(key("M-x")).toBe("\x1bx");
    expect(key("C-M-a")).toBe("\x1b\x01");
  });

  test("BSpace, NPage, PPage, BTab, DC and IC name the same keys as the canonical names", () => {
    expect(key("BSpace")).toBe(key("Backspace"));
    expect(key("NPage")).toBe(key("PageDown"));
    expect(key("PPage")).toBe(key("PageUp"));
    expect(key("BTab")).toBe(key("Shift+Tab"));
    expect(key("DC")).toBe(key("Delete"));
    expect(key("IC")).toBe(key("Insert"));
  });
});

describe("vim notation", () => {
  test("<C-c>, <CR> and <Esc> are Ctrl+C, Enter and Escape", () => {
    expect(key("<C-c>")).toBe("\x03");
    expect(key("<CR>")).toBe("\r");
    expect(key("<Esc>")).toBe("\x1b");
  });

  test("vim modifiers combine with special keys", () => {
    expect(key("<S-Tab>")).toBe("\x1b[Z");
    expect(key("<C-Up>")).toBe("\x1b[1;5A");
  });
});

describe("modifiers", () => {
  test("Ctrl with a letter gives its control code", () => {
    expect(key("Ctrl+C")).toBe("\x03");
    expect(key("Ctrl+a")).toBe("\x01");
    expect(key("Ctrl+[")).toBe("\x1b");
  });

  test("Alt prefixes ESC", () => {
    expect(key("Alt+x")).toBe("\x1bx");
    expect(key("Alt+Enter")).toBe("\x1b\r");
  });

  test("Shift+Tab is back-tab", () => {
    expect(key("Shift+Tab")).toBe("\x1b[Z");
  });

  test("modified tilde keys carry the xterm modifier parameter", () => {
    expect(key("Ctrl+Alt+Delete")).toBe("\x1b[3;7~");
    expect(key("Shift+PageUp")).toBe("\x1b[5;2~");
  });

  test("modified cursor keys use CSI 1;m even in application cursor mode", () => {
    expect(encodeKey("Ctrl+Left", app)).toBe("\x1b[1;5D");
    expect(encodeKey("Shift+Up", normal)).toBe("\x1b[1;2A");
  });

  test("Shift with a letter gives the capital letter", () => {
    expect(key("Shift+a")).toBe("A");
  });
});

describe("application cursor keys mode", () => {
  test("Up sends ESC O A once the app switched cursor keys to application mode", () => {
    expect(encodeKey("Up", app)).toBe("\x1bOA");
    expect(encodeKey("Down", app)).toBe("\x1bOB");
    expect(encodeKey("Home", app)).toBe("\x1bOH");
  });

  test("keys that are not cursor keys do not change with the mode", () => {
    expect(encodeKey("PageDown", app)).toBe("\x1b[6~");
    expect(encodeKey("Enter", app)).toBe("\r");
  });
});

describe("unknown tokens", () => {
  test("an unknown key name throws BAD_ARGUMENT naming the token", () => {
    let err: unknown;
    try {
      key("Hyper+Frobnicate");
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TermdError);
    expect((err as TermdError).code).toBe("BAD_ARGUMENT");
    expect((err as TermdError).message).toContain("Hyper+Frobnicate");
    expect((err as TermdError).details).toEqual({ token: "Hyper+Frobnicate" });
  });

  test("an empty token is refused", () => {
    expect(() => key("")).toThrow(TermdError);
  });

  test("one unknown token in a list fails the whole list", () => {
    expect(() => encodeKeys(["a", "NoSuchKey", "b"], normal)).toThrow(/NoSuchKey/);
  });

  test("Ctrl with a character that has no control code is refused", () => {
    expect(() => key("Ctrl+%")).toThrow(/Ctrl\+%/);
  });
});

describe("kitty keyboard protocol (once the app pushed flags with disambiguate)", () => {
  const kitty = { applicationCursor: false, kittyFlags: 1 };
  const k = (t: string) => encodeKey(t, kitty);

  test("modified Enter, Tab, Backspace and Space are CSI code ; modifiers u", () => {
    expect(k("Shift+Enter")).toBe("\x1b[13;2u");
    expect(k("Alt+Enter")).toBe("\x1b[13;3u");
    expect(k("Ctrl+Enter")).toBe("\x1b[13;5u");
    expect(k("Shift+Tab")).toBe("\x1b[9;2u");
    expect(k("BTab")).toBe("\x1b[9;2u");
    expect(k("Ctrl+Backspace")).toBe("\x1b[127;5u");
    expect(k("Ctrl+Space")).toBe("\x1b[32;5u");
  });

  test("Escape is always CSI 27 u, so it cannot be mistaken for the start of a sequence", () => {
    expect(k("Escape")).toBe("\x1b[27u");
    expect(k("Alt+Escape")).toBe("\x1b[27;3u");
  });

  test("Ctrl and Alt with a character use the unshifted key's code", () => {
    expect(k("C-c")).toBe("\x1b[99;5u");
    expect(k("M-x")).toBe("\x1b[120;3u");
    expect(k("Ctrl+Shift+a")).toBe("\x1b[97;6u");
    expect(k("Alt+A")).toBe("\x1b[97;4u");
  });

  test("plain keys, Shift with text, and keys legacy encoding already tells apart stay as they were", () => {
    expect(k("Enter")).toBe("\r");
    expect(k("Tab")).toBe("\t");
    expect(k("Backspace")).toBe("\x7f");
    expect(k("Space")).toBe(" ");
    expect(k("Shift+Space")).toBe(" ");
    expect(k("a")).toBe("a");
    expect(k("Shift+a")).toBe("A");
    expect(k("Up")).toBe("\x1b[A");
    expect(k("Ctrl+Up")).toBe("\x1b[1;5A");
    expect(k("Shift+F5")).toBe("\x1b[15;2~");
  });

  test("flags without disambiguate (bit 1) leave the legacy encoding alone", () => {
    expect(encodeKey("Shift+Enter", { applicationCursor: false, kittyFlags: 2 })).toBe("\r");
    expect(encodeKey("C-c", { applicationCursor: false, kittyFlags: 0 })).toBe("\x03");
  });
});

test("tmux's KPEnter is Enter; vim's <lt>, <Bar> and <Bslash> are the characters they name, only inside <…>", () => {
  expect(key("KPEnter")).toBe("\r");
  expect(key("<lt>")).toBe("<");
  expect(key("<Bar>")).toBe("|");
  expect(key("<Bslash>")).toBe("\\");
  expect(key("<M-lt>")).toBe("\x1b<");
  expect(() => key("lt")).toThrow(TermdError);
});
