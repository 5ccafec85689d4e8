import { describe, expect, test } from "bun:test";
import { TermdError } from "./errors.ts";
import { encodeKey, encodeKeys, type KeyModes } from "./keys.ts";

const normal = { applicationCursor: false };
const app = { applicationCursor: true };
const key = (t: string) => encodeKey(t, normal);
/** What each token encodes to in `modes`, compared whole: a failure shows every token's bytes. */
const encodes = (rows: Record<string, string>, modes: KeyModes = normal) =>
  expect(Object.fromEntries(Object.keys(rows).map((t) => [t, encodeKey(t, modes)]))).toEqual(rows);

describe("canonical key names", () => {
  test("the plain keys encode as the bytes a terminal sends", () => {
    encodes({
      Enter: "\r",
      Escape: "\x1b",
      Tab: "\t",
      Backspace: "\x7f",
      Space: " ",
      Insert: "\x1b[2~",
      Delete: "\x1b[3~",
      PageUp: "\x1b[5~",
      PageDown: "\x1b[6~",
    });
  });

  test("cursor keys use CSI in normal cursor mode", () => {
    encodes({ Up: "\x1b[A", Down: "\x1b[B", Right: "\x1b[C", Left: "\x1b[D", Home: "\x1b[H", End: "\x1b[F" });
  });

  test("function keys follow xterm: SS3 for F1-F4, CSI n ~ from F5", () => {
    encodes({ F1: "\x1bOP", F4: "\x1bOS", F5: "\x1b[15~", F12: "\x1b[24~" });
  });

  test("names are case-insensitive", () => {
    encodes({ enter: "\r", PAGEDOWN: "\x1b[6~" });
  });

  test("a single character is sent as itself", () => {
    encodes({ a: "a", é: "é" });
  });

  test("a list of tokens encodes to the concatenation of each", () => {
    expect(encodeKeys(["i", "Escape", ":", "Enter"], normal)).toBe("i\x1b:\r");
  });
});

describe("tmux aliases", () => {
  test("C-c is Ctrl+C and M-x is Alt+x", () => {
    encodes({ "C-c": "\x03", "M-x": "\x1bx", "C-M-a": "\x1b\x01" });
  });

  test("BSpace, NPage, PPage, BTab, DC and IC name the same keys as the canonical names", () => {
    encodes({
      BSpace: key("Backspace"),
      NPage: key("PageDown"),
      PPage: key("PageUp"),
      BTab: key("Shift+Tab"),
      DC: key("Delete"),
      IC: key("Insert"),
    });
  });
});

describe("vim notation", () => {
  test("<C-c>, <CR> and <Esc> are Ctrl+C, Enter and Escape", () => {
    encodes({ "<C-c>": "\x03", "<CR>": "\r", "<Esc>": "\x1b" });
  });

  test("vim modifiers combine with special keys", () => {
    encodes({ "<S-Tab>": "\x1b[Z", "<C-Up>": "\x1b[1;5A" });
  });
});

describe("modifiers", () => {
  test("Ctrl with a letter gives its control code", () => {
    encodes({ "Ctrl+C": "\x03", "Ctrl+a": "\x01", "Ctrl+[": "\x1b" });
  });

  test("Alt prefixes ESC", () => {
    encodes({ "Alt+x": "\x1bx", "Alt+Enter": "\x1b\r" });
  });

  test("Shift+Tab is back-tab", () => {
    expect(key("Shift+Tab")).toBe("\x1b[Z");
  });

  test("modified tilde keys carry the xterm modifier parameter", () => {
    encodes({ "Ctrl+Alt+Delete": "\x1b[3;7~", "Shift+PageUp": "\x1b[5;2~" });
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
    encodes({ Up: "\x1bOA", Down: "\x1bOB", Home: "\x1bOH" }, app);
  });

  test("keys that are not cursor keys do not change with the mode", () => {
    encodes({ PageDown: "\x1b[6~", Enter: "\r" }, app);
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

  test("modified Enter, Tab, Backspace and Space are CSI code ; modifiers u", () => {
    encodes(
      {
        "Shift+Enter": "\x1b[13;2u",
        "Alt+Enter": "\x1b[13;3u",
        "Ctrl+Enter": "\x1b[13;5u",
        "Shift+Tab": "\x1b[9;2u",
        BTab: "\x1b[9;2u",
        "Ctrl+Backspace": "\x1b[127;5u",
        "Ctrl+Space": "\x1b[32;5u",
      },
      kitty,
    );
  });

  test("Escape is always CSI 27 u, so it cannot be mistaken for the start of a sequence", () => {
    encodes({ Escape: "\x1b[27u", "Alt+Escape": "\x1b[27;3u" }, kitty);
  });

  test("Ctrl and Alt with a character use the unshifted key's code", () => {
    encodes({ "C-c": "\x1b[99;5u", "M-x": "\x1b[120;3u", "Ctrl+Shift+a": "\x1b[97;6u", "Alt+A": "\x1b[97;4u" }, kitty);
  });

  test("plain keys, Shift with text, and keys legacy encoding already tells apart stay as they were", () => {
    encodes(
      {
        Enter: "\r",
        Tab: "\t",
        Backspace: "\x7f",
        Space: " ",
        "Shift+Space": " ",
        a: "a",
        "Shift+a": "A",
        Up: "\x1b[A",
        "Ctrl+Up": "\x1b[1;5A",
        "Shift+F5": "\x1b[15;2~",
      },
      kitty,
    );
  });

  test("flags without disambiguate (bit 1) leave the legacy encoding alone", () => {
    expect(encodeKey("Shift+Enter", { applicationCursor: false, kittyFlags: 2 })).toBe("\r");
    expect(encodeKey("C-c", { applicationCursor: false, kittyFlags: 0 })).toBe("\x03");
  });
});

test("tmux's KPEnter is Enter; vim's <lt>, <Bar> and <Bslash> are the characters they name, only inside <…>", () => {
  encodes({ KPEnter: "\r", "<lt>": "<", "<Bar>": "|", "<Bslash>": "\\", "<M-lt>": "\x1b<" });
  expect(() => key("lt")).toThrow(TermdError);
});
