// Mouse events → the bytes a terminal sends for them, in the form the application asked for:
// which events it hears from its tracking mode (9 X10: presses only; 1000: presses and releases;
// 1002: also motion while a button is down; 1003: all motion) and how they are written (SGR 1006,
// CSI < b ; x ; y M|m, or the legacy CSI M with each value + 32 in one byte). Positions are
// 0-based, as session.screen's cursor is; the wire's are 1-based. The button and modifier bits are
// xterm's (ctlseqs "Mouse Tracking"): 0 left, 1 middle, 2 right, 3 release (legacy), 64+ wheel,
// +4 shift, +8 alt (meta), +16 ctrl, +32 motion.
//
// Departures: 1005 (UTF-8) and 1015 (urxvt) encodings are not spoken; X10 mode sends no modifiers
// (as xterm); a legacy report past column or row 223 cannot be written and is refused rather than
// sent wrong.
import type { Modes } from "../protocol/schemas.ts";
import { TermdError } from "./errors.ts";

export type MouseButton = "left" | "middle" | "right";
export type ScrollDirection = "up" | "down" | "left" | "right";

export interface MousePoint {
  row: number;
  col: number;
}

export interface MouseModifiers {
  shift?: boolean;
  alt?: boolean;
  ctrl?: boolean;
}

export type MouseEvent = MouseModifiers &
  (
    | ({ action: "click"; button?: MouseButton /** 2 for a double click. */; count?: number } & MousePoint)
    | ({ action: "press" | "release"; button?: MouseButton } & MousePoint)
    | ({ action: "move" } & MousePoint)
    | { action: "drag"; from: MousePoint; to: MousePoint; button?: MouseButton }
    | ({ action: "scroll"; direction: ScrollDirection; count?: number } & MousePoint)
  );

export interface MouseModes {
  mouse: Modes["mouse"];
  mouse_sgr: boolean;
}

const BUTTON: Record<MouseButton, number> = { left: 0, middle: 1, right: 2 };
const WHEEL: Record<ScrollDirection, number> = { up: 64, down: 65, left: 66, right: 67 };
const MOTION = 32;
/** The largest 1-based coordinate one legacy byte can carry (255 - 32). */
const LEGACY_MAX = 223;

/** A report: a button code (with motion and wheel bits), where, and whether it is a release. */
interface Report {
  code: number;
  at: MousePoint;
  release: boolean;
}

function refuse(message: string, details: Record<string, unknown> = {}): never {
  throw new TermdError("MOUSE_NOT_ENABLED", message, details);
}

function check(p: MousePoint, size: { rows: number; cols: number }, what: string): void {
  if (p.row >= size.rows || p.col >= size.cols)
    throw new TermdError(
      "BAD_ARGUMENT",
      `${what} ${p.row},${p.col} is outside the ${size.rows}x${size.cols} screen (rows and columns count from 0)`,
      { row: p.row, col: p.col },
    );
}

/** The points a drag passes through after `from`, one per step of the longer axis, ending at `to`. */
function path(from: MousePoint, to: MousePoint): MousePoint[] {
  const steps = Math.max(Math.abs(to.row - from.row), Math.abs(to.col - from.col));
  const out: MousePoint[] = [];
  for (let i = 1; i <= steps; i++)
    out.push({
      row: Math.round(from.row + ((to.row - from.row) * i) / steps),
      col: Math.round(from.col + ((to.col - from.col) * i) / steps),
    });
  return out;
}

/** The reports the event makes, before the mode filters out those the program does not hear. */
function reports(e: MouseEvent): Report[] {
  switch (e.action) {
    case "press":
      return [{ code: BUTTON[e.button ?? "left"], at: e, release: false }];
    case "release":
      return [{ code: BUTTON[e.button ?? "left"], at: e, release: true }];
    case "click": {
      const b = BUTTON[e.button ?? "left"];
      const one: Report[] = [
        { code: b, at: e, release: false },
        { code: b, at: e, release: true },
      ];
      return Array.from({ length: e.count ?? 1 }, () => one).flat();
    }
    case "move":
      // Motion with no button down: xterm's "button 3" plus the motion bit.
      return [{ code: 3 + MOTION, at: e, release: false }];
    case "drag": {
      const b = BUTTON[e.button ?? "left"];
      return [
        { code: b, at: e.from, release: false },
        ...path(e.from, e.to).map((at) => ({ code: b + MOTION, at, release: false })),
        { code: b, at: e.to, release: true },
      ];
    }
    case "scroll":
      // A wheel notch is a press with no release, in every encoding.
      return Array.from({ length: e.count ?? 1 }, () => ({ code: WHEEL[e.direction], at: e, release: false }));
  }
}

/** Does a program in this tracking mode hear this report? */
function heard(r: Report, mode: Modes["mouse"]): boolean {
  const motion = (r.code & MOTION) !== 0;
  if (mode === "x10") return !r.release && !motion;
  if (mode === "vt200") return !motion;
  if (mode === "drag") return !motion || (r.code & 3) !== 3;
  return mode === "any";
}

function modifierBits(e: MouseModifiers): number {
  return (e.shift ? 4 : 0) | (e.alt ? 8 : 0) | (e.ctrl ? 16 : 0);
}

function encode(r: Report, mods: number, sgr: boolean): string {
  const x = r.at.col + 1;
  const y = r.at.row + 1;
  if (sgr) return `\x1b[<${r.code | mods};${x};${y}${r.release ? "m" : "M"}`;
  if (x > LEGACY_MAX || y > LEGACY_MAX)
    throw new TermdError(
      "BAD_ARGUMENT",
      `the program reads mouse reports in the legacy encoding, which cannot say row ${r.at.row} column ${r.at.col} (at most 222, counting from 0; SGR mode 1006 has no limit)`,
      {
        row: r.at.row,
        col: r.at.col,
      },
    );
  // A legacy release names no button.
  const code = r.release ? 3 | mods : r.code | mods;
  return "\x1b[M" + String.fromCharCode(code + 32, x + 32, y + 32);
}

/**
 * The bytes a terminal would send for `e` to a program in `modes` on a screen of `size`. Throws
 * MOUSE_NOT_ENABLED when the program asked for no mouse reporting, or for none that hears this
 * event (motion without a button outside mode 1003); BAD_ARGUMENT for a point off the screen.
 */
export function encodeMouse(e: MouseEvent, modes: MouseModes, size: { rows: number; cols: number }): Uint8Array {
  if (e.action === "drag") {
    check(e.from, size, "drag start");
    check(e.to, size, "drag end");
  } else check(e, size, `${e.action} at`);
  if (modes.mouse === "none")
    refuse(
      "the program asked for no mouse reporting (it turned on none of the mouse modes 9, 1000, 1002, 1003): a mouse event would reach it as stray text",
      { mouse: "none" },
    );
  const mine = reports(e);
  const sent = mine.filter((r) => heard(r, modes.mouse));
  if (sent.length === 0)
    refuse(
      `the program's mouse mode (${modes.mouse}) does not report ${e.action === "move" ? "motion with no button down (that needs mode 1003)" : `a ${e.action}`}`,
      { mouse: modes.mouse },
    );
  // X10 mode reports no modifiers, as xterm.
  const mods = modes.mouse === "x10" ? 0 : modifierBits(e);
  // One byte per character: a legacy report's values go up to 255 and must not become UTF-8.
  return Buffer.from(sent.map((r) => encode(r, mods, modes.mouse_sgr)).join(""), "latin1");
}
