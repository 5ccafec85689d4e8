// Key tokens → bytes. Canonical names, tmux aliases (C-c, M-x, BSpace, NPage …) and vim notation
// (<C-c>, <CR>) all resolve to one KeySpec, which is encoded with the xterm conventions and the
// application's current cursor-key mode (DECCKM: ESC O A instead of ESC [ A). Once the app pushed
// kitty keyboard flags with "disambiguate" (CSI > 1 u), keys that legacy encoding cannot tell
// apart use the kitty protocol's CSI code ; modifiers u: Shift+Enter is CSI 13;2u, Ctrl+c is
// CSI 99;5u, Escape is CSI 27u. Keys the legacy form already tells apart (cursor, function and
// editing keys) keep it, as kitty does; plain text and Shift+letter stay text.
import { excerpt, quoted, TermdError } from "./errors.ts";
import { KITTY_DISAMBIGUATE } from "./kitty.ts";

export interface KeyModes {
  applicationCursor: boolean;
  /** The kitty keyboard flags in force (0 or absent: legacy encoding). */
  kittyFlags?: number;
}

/** Kitty key codes of the keys that are bytes in the legacy encoding. */
const KITTY_CODE: Record<string, number> = { enter: 13, tab: 9, backspace: 127, escape: 27, space: 32 };

function kittyKey(code: number, mods: Mods): string {
  const mp = modParam(mods);
  return mp > 1 ? `\x1b[${code};${mp}u` : `\x1b[${code}u`;
}

interface Mods {
  shift: boolean;
  alt: boolean;
  ctrl: boolean;
}

type Special =
  | { kind: "cursor"; final: string } // Up Down Right Left Home End: CSI/SS3 final
  | { kind: "tilde"; code: number } // Insert Delete PageUp PageDown F5+: CSI code ~
  | { kind: "ss3"; final: string } // F1-F4: SS3 final
  | { kind: "byte"; bytes: string }; // Enter Tab Backspace Escape Space

const SPECIAL: Record<string, Special> = {
  enter: { kind: "byte", bytes: "\r" },
  tab: { kind: "byte", bytes: "\t" },
  backspace: { kind: "byte", bytes: "\x7f" },
  escape: { kind: "byte", bytes: "\x1b" },
  space: { kind: "byte", bytes: " " },
  up: { kind: "cursor", final: "A" },
  down: { kind: "cursor", final: "B" },
  right: { kind: "cursor", final: "C" },
  left: { kind: "cursor", final: "D" },
  home: { kind: "cursor", final: "H" },
  end: { kind: "cursor", final: "F" },
  insert: { kind: "tilde", code: 2 },
  delete: { kind: "tilde", code: 3 },
  pageup: { kind: "tilde", code: 5 },
  pagedown: { kind: "tilde", code: 6 },
  f1: { kind: "ss3", final: "P" },
  f2: { kind: "ss3", final: "Q" },
  f3: { kind: "ss3", final: "R" },
  f4: { kind: "ss3", final: "S" },
  f5: { kind: "tilde", code: 15 },
  f6: { kind: "tilde", code: 17 },
  f7: { kind: "tilde", code: 18 },
  f8: { kind: "tilde", code: 19 },
  f9: { kind: "tilde", code: 20 },
  f10: { kind: "tilde", code: 21 },
  f11: { kind: "tilde", code: 23 },
  f12: { kind: "tilde", code: 24 },
};

/** Other spellings of the canonical names: tmux's, vim's, and common ones. */
const ALIAS: Record<string, string> = {
  return: "enter",
  ret: "enter",
  cr: "enter",
  lf: "enter",
  nl: "enter",
  esc: "escape",
  bspace: "backspace",
  bs: "backspace",
  dc: "delete",
  del: "delete",
  ic: "insert",
  ins: "insert",
  npage: "pagedown",
  pgdn: "pagedown",
  pagedn: "pagedown",
  ppage: "pageup",
  pgup: "pageup",
  spc: "space",
  // tmux's keypad Enter; the keypad's own application mode (ESC O M) is not modelled: Enter is.
  kpenter: "enter",
};

/** vim's names for characters that <…> notation cannot write plainly. */
const CHAR_ALIAS: Record<string, string> = { lt: "<", bar: "|", bslash: "\\" };

export function keyError(token: string, why: string): TermdError {
  return new TermdError("BAD_ARGUMENT", `unknown key token ${quoted(token)}: ${why}`, { token: excerpt(token) });
}

/** Splits "Ctrl+Alt+x", "C-M-x", "<C-x>" into modifiers and the base key name. */
function parseToken(token: string): { mods: Mods; base: string; vim: boolean } {
  let t = token;
  const vim = /^<(.+)>$/.exec(t);
  if (vim) t = vim[1]!;
  const mods: Mods = { shift: false, alt: false, ctrl: false };
  for (;;) {
    // tmux's one-letter prefixes are C- M- S- in either case; vim adds A- inside <…> only,
    // so a bare "a-b" is not mistaken for Alt+b.
    const m = (vim ? /^(ctrl|control|alt|meta|shift|c|m|s|a)[+-](.+)$/i : /^(ctrl|control|alt|meta|shift|c|m|s)[+-](.+)$/i).exec(t);
    if (!m) break;
    const mod = m[1]!.toLowerCase();
    if (mod === "c" || mod === "ctrl" || mod === "control") mods.ctrl = true;
    else if (mod === "m" || mod === "alt" || mod === "meta" || mod === "a") mods.alt = true;
    else mods.shift = true;
    t = m[2]!;
  }
  if (token.toLowerCase() === "btab") return { mods: { ...mods, shift: true }, base: "Tab", vim: false };
  return { mods, base: t, vim: vim !== null };
}

function modParam(m: Mods): number {
  return 1 + (m.shift ? 1 : 0) + (m.alt ? 2 : 0) + (m.ctrl ? 4 : 0);
}

function ctrlByte(ch: string): string | null {
  const c = ch.toLowerCase();
  if (c >= "a" && c <= "z") return String.fromCharCode(c.charCodeAt(0) - 96);
  const table: Record<string, string> = {
    "@": "\x00",
    " ": "\x00",
    "2": "\x00",
    "[": "\x1b",
    "3": "\x1b",
    "\\": "\x1c",
    "4": "\x1c",
    "]": "\x1d",
    "5": "\x1d",
    "^": "\x1e",
    "6": "\x1e",
    _: "\x1f",
    "7": "\x1f",
    "/": "\x1f",
    "?": "\x7f",
    "8": "\x7f",
  };
  return table[c] ?? null;
}

function encodeSpecial(s: Special, mods: Mods, modes: KeyModes, name: string): string {
  const mp = modParam(mods);
  switch (s.kind) {
    case "cursor":
      if (mp > 1) return `\x1b[1;${mp}${s.final}`;
      return (modes.applicationCursor ? "\x1bO" : "\x1b[") + s.final;
    case "tilde":
      return mp > 1 ? `\x1b[${s.code};${mp}~` : `\x1b[${s.code}~`;
    case "ss3":
      return mp > 1 ? `\x1b[1;${mp}${s.final}` : `\x1bO${s.final}`;
    case "byte": {
      if ((modes.kittyFlags ?? 0) & KITTY_DISAMBIGUATE) {
        const shiftOnlySpace = name === "space" && !mods.ctrl && !mods.alt;
        if (name === "escape" || ((mods.shift || mods.alt || mods.ctrl) && !shiftOnlySpace)) return kittyKey(KITTY_CODE[name]!, mods);
      }
      if (name === "tab" && mods.shift) return mods.alt ? "\x1b\x1b[Z" : "\x1b[Z";
      let b = s.bytes;
      if (mods.ctrl && name === "space") b = "\x00";
      else if (mods.ctrl && name === "backspace") b = "\x08";
      return mods.alt ? "\x1b" + b : b;
    }
  }
}

/** Encodes one key token; throws INVALID_PARAMS naming the token when it is not a key. */
export function encodeKey(token: string, modes: KeyModes): string {
  if (token.length === 0) throw keyError(token, "empty token");
  const parsed = parseToken(token);
  const mods = parsed.mods;
  const base = (parsed.vim && CHAR_ALIAS[parsed.base.toLowerCase()]) || parsed.base;
  const lower = base.toLowerCase();
  const name = ALIAS[lower] ?? lower;
  const special = SPECIAL[name];
  if (special) return encodeSpecial(special, mods, modes, name);
  if ([...base].length !== 1) throw keyError(token, "not a key name (try Enter, Escape, Up, F5, C-c, <C-x>)");
  if ((modes.kittyFlags ?? 0) & KITTY_DISAMBIGUATE && (mods.ctrl || mods.alt)) {
    // The key's own (unshifted) code; an upper-case letter means Shift was held.
    const lower = base.toLowerCase();
    const shift = mods.shift || (lower !== base && lower.length === 1);
    return kittyKey(lower.codePointAt(0)!, { ...mods, shift });
  }
  let ch = mods.shift && !mods.ctrl ? base.toUpperCase() : base;
  if (mods.ctrl) {
    const c = ctrlByte(ch);
    if (c === null) throw keyError(token, `no control code for ${JSON.stringify(base)}`);
    ch = c;
  }
  return mods.alt ? "\x1b" + ch : ch;
}

export function encodeKeys(tokens: readonly string[], modes: KeyModes): string {
  return tokens.map((t) => encodeKey(t, modes)).join("");
}

/**
 * Text as a paste: between bracketed-paste marks when the program turned mode 2004 on (an end
 * mark inside the text is dropped, so the text cannot end the paste early), else as it is.
 */
export function pasteBytes(text: string, bracketed: boolean): string {
  return bracketed ? `\x1b[200~${text.replaceAll("\x1b[201~", "")}\x1b[201~` : text;
}
