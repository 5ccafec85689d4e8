// The transition table of the DEC/ANSI parser, written as the byte-range rows of vt100.net's state
// diagram and compiled once into a flat Uint16Array indexed by state << 8 | byte (the xterm.js
// form), so the parser does one lookup per byte. Rows marked "departure" differ from vt100.net;
// parser.ts's header says why.
import { ParserAction as A, ParserState as S, STATE_COUNT } from "./constants.ts";

/** An entry: bits 0-3 the next state, bits 4-7 the action, bit 8 set when it is a transition
 * (an arrow in the diagram, which runs the exit and entry actions even back into the same state). */
export const TRANSITION = 0x100;

/** Entry actions by state: clear, osc_start or hook; IGNORE where a state has none. */
export const ENTRY_ACTION = new Uint8Array(STATE_COUNT);
/** Exit actions by state: osc_end or unhook; IGNORE where a state has none. */
export const EXIT_ACTION = new Uint8Array(STATE_COUNT);

function range(from: number, to: number): number[] {
  const out: number[] = [];
  for (let c = from; c <= to; c++) out.push(c);
  return out;
}

class TableBuilder {
  readonly table = new Uint16Array(STATE_COUNT << 8);

  /** An event inside a state: the action runs and the state stays, with no exit or entry. */
  on(state: S, codes: number[], action: A): this {
    for (const c of codes) this.table[(state << 8) | c] = (action << 4) | state;
    return this;
  }

  /** A transition: exit action of `state`, then `action`, then entry action of `next`. */
  go(state: S, codes: number[], action: A, next: S): this {
    for (const c of codes) this.table[(state << 8) | c] = TRANSITION | (action << 4) | next;
    return this;
  }
}

function build(): Uint16Array {
  /** C0 controls other than CAN, SUB and ESC, which are "anywhere" transitions. */
  const C0 = [...range(0x00, 0x17), 0x19, ...range(0x1c, 0x1f)];
  /** Bytes 0x80-0xFF: UTF-8, never C1 controls (a departure, see parser.ts). */
  const HIGH = range(0x80, 0xff);
  const t = new TableBuilder();
  // Every (state, byte) not listed below is "ignore" inside the state: the array starts zeroed and
  // IGNORE is 0, with the state filled in here.
  for (let s = 0; s < STATE_COUNT; s++) t.on(s, range(0x00, 0xff), A.IGNORE);

  t.on(S.GROUND, C0, A.EXECUTE)
    .on(S.GROUND, range(0x20, 0x7e), A.PRINT)
    .on(S.GROUND, [0x7f], A.IGNORE) // departure: DEL is not printed
    .on(S.GROUND, HIGH, A.PRINT);

  t.on(S.ESCAPE, C0, A.EXECUTE)
    .on(S.ESCAPE, [0x7f], A.IGNORE)
    .go(S.ESCAPE, range(0x20, 0x2f), A.COLLECT, S.ESCAPE_INTERMEDIATE)
    .go(S.ESCAPE, [...range(0x30, 0x4f), ...range(0x51, 0x57)], A.ESC_DISPATCH, S.GROUND)
    .go(S.ESCAPE, [0x59, 0x5a, 0x5c, ...range(0x60, 0x7e)], A.ESC_DISPATCH, S.GROUND)
    .go(S.ESCAPE, [0x5b], A.IGNORE, S.CSI_ENTRY)
    .go(S.ESCAPE, [0x5d], A.IGNORE, S.OSC_STRING)
    .go(S.ESCAPE, [0x50], A.IGNORE, S.DCS_ENTRY)
    .go(S.ESCAPE, [0x58, 0x5e, 0x5f], A.IGNORE, S.SOS_PM_APC_STRING);

  t.on(S.ESCAPE_INTERMEDIATE, C0, A.EXECUTE)
    .on(S.ESCAPE_INTERMEDIATE, range(0x20, 0x2f), A.COLLECT)
    .on(S.ESCAPE_INTERMEDIATE, [0x7f], A.IGNORE)
    .go(S.ESCAPE_INTERMEDIATE, range(0x30, 0x7e), A.ESC_DISPATCH, S.GROUND);

  t.on(S.CSI_ENTRY, C0, A.EXECUTE)
    .on(S.CSI_ENTRY, [0x7f], A.IGNORE)
    .go(S.CSI_ENTRY, range(0x20, 0x2f), A.COLLECT, S.CSI_INTERMEDIATE)
    .go(S.CSI_ENTRY, range(0x30, 0x3b), A.PARAM, S.CSI_PARAM) // departure: 3A is a param
    .go(S.CSI_ENTRY, range(0x3c, 0x3f), A.COLLECT, S.CSI_PARAM)
    .go(S.CSI_ENTRY, range(0x40, 0x7e), A.CSI_DISPATCH, S.GROUND);

  t.on(S.CSI_PARAM, C0, A.EXECUTE)
    .on(S.CSI_PARAM, range(0x30, 0x3b), A.PARAM) // departure: 3A is a param
    .on(S.CSI_PARAM, [0x7f], A.IGNORE)
    .go(S.CSI_PARAM, range(0x3c, 0x3f), A.IGNORE, S.CSI_IGNORE)
    .go(S.CSI_PARAM, range(0x20, 0x2f), A.COLLECT, S.CSI_INTERMEDIATE)
    .go(S.CSI_PARAM, range(0x40, 0x7e), A.CSI_DISPATCH, S.GROUND);

  t.on(S.CSI_INTERMEDIATE, C0, A.EXECUTE)
    .on(S.CSI_INTERMEDIATE, range(0x20, 0x2f), A.COLLECT)
    .on(S.CSI_INTERMEDIATE, [0x7f], A.IGNORE)
    .go(S.CSI_INTERMEDIATE, range(0x30, 0x3f), A.IGNORE, S.CSI_IGNORE)
    .go(S.CSI_INTERMEDIATE, range(0x40, 0x7e), A.CSI_DISPATCH, S.GROUND);

  t.on(S.CSI_IGNORE, C0, A.EXECUTE)
    .on(S.CSI_IGNORE, [...range(0x20, 0x3f), 0x7f], A.IGNORE)
    .go(S.CSI_IGNORE, range(0x40, 0x7e), A.IGNORE, S.GROUND);

  t.on(S.DCS_ENTRY, [...C0, 0x7f], A.IGNORE)
    .go(S.DCS_ENTRY, range(0x20, 0x2f), A.COLLECT, S.DCS_INTERMEDIATE)
    .go(S.DCS_ENTRY, range(0x30, 0x3b), A.PARAM, S.DCS_PARAM) // departure: 3A is a param
    .go(S.DCS_ENTRY, range(0x3c, 0x3f), A.COLLECT, S.DCS_PARAM)
    .go(S.DCS_ENTRY, range(0x40, 0x7e), A.IGNORE, S.DCS_PASSTHROUGH);

  t.on(S.DCS_PARAM, [...C0, 0x7f], A.IGNORE)
    .on(S.DCS_PARAM, range(0x30, 0x3b), A.PARAM) // departure: 3A is a param
    .go(S.DCS_PARAM, range(0x3c, 0x3f), A.IGNORE, S.DCS_IGNORE)
    .go(S.DCS_PARAM, range(0x20, 0x2f), A.COLLECT, S.DCS_INTERMEDIATE)
    .go(S.DCS_PARAM, range(0x40, 0x7e), A.IGNORE, S.DCS_PASSTHROUGH);

  t.on(S.DCS_INTERMEDIATE, [...C0, 0x7f], A.IGNORE)
    .on(S.DCS_INTERMEDIATE, range(0x20, 0x2f), A.COLLECT)
    .go(S.DCS_INTERMEDIATE, range(0x30, 0x3f), A.IGNORE, S.DCS_IGNORE)
    .go(S.DCS_INTERMEDIATE, range(0x40, 0x7e), A.IGNORE, S.DCS_PASSTHROUGH);

  t.on(S.DCS_PASSTHROUGH, [...C0, ...range(0x20, 0x7e)], A.PUT)
    .on(S.DCS_PASSTHROUGH, [0x7f], A.IGNORE)
    .on(S.DCS_PASSTHROUGH, HIGH, A.PUT); // departure: payload bytes, not GL/C1

  t.on(S.DCS_IGNORE, [...C0, ...range(0x20, 0x7f)], A.IGNORE);

  t.on(S.OSC_STRING, C0, A.IGNORE)
    .go(S.OSC_STRING, [0x07], A.IGNORE, S.GROUND) // departure: BEL ends OSC, as in xterm
    .on(S.OSC_STRING, range(0x20, 0x7f), A.OSC_PUT)
    .on(S.OSC_STRING, HIGH, A.OSC_PUT); // departure: UTF-8 payload

  t.on(S.SOS_PM_APC_STRING, [...C0, ...range(0x20, 0x7f)], A.IGNORE);

  // Anywhere: CAN and SUB execute and abort to GROUND; ESC starts a new escape sequence. Listed
  // last so they win over the rows above.
  for (let s = 0; s < STATE_COUNT; s++) {
    t.go(s, [0x18, 0x1a], A.EXECUTE, S.GROUND).go(s, [0x1b], A.IGNORE, S.ESCAPE);
  }

  ENTRY_ACTION[S.ESCAPE] = A.CLEAR;
  ENTRY_ACTION[S.CSI_ENTRY] = A.CLEAR;
  ENTRY_ACTION[S.DCS_ENTRY] = A.CLEAR;
  ENTRY_ACTION[S.DCS_PASSTHROUGH] = A.HOOK;
  ENTRY_ACTION[S.OSC_STRING] = A.OSC_START;
  EXIT_ACTION[S.DCS_PASSTHROUGH] = A.UNHOOK;
  EXIT_ACTION[S.OSC_STRING] = A.OSC_END;
  return t.table;
}

let table: Uint16Array | undefined;

/**
 * The table (ENTRY_ACTION and EXIT_ACTION filled with it), built by the first parser: a process
 * that never parses (a client command, an idle daemon, whose sessions are parsed in workers)
 * never runs the build, whose loops were hot enough to wake the JIT (~1 MB of an idle daemon).
 */
export function transitionTable(): Uint16Array {
  table ??= build();
  return table;
}
