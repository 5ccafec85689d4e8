// The vocabulary of the DEC/ANSI parser: states and actions named exactly as in Paul Flo Williams'
// "A parser for DEC's ANSI-compatible video terminals" (https://vt100.net/emu/dec_ansi_parser),
// and the limits that keep every buffer bounded. Numbering matters only to the transition table:
// a state and an action each fit in 4 bits.

export const enum ParserState {
  GROUND = 0,
  ESCAPE = 1,
  ESCAPE_INTERMEDIATE = 2,
  CSI_ENTRY = 3,
  CSI_PARAM = 4,
  CSI_INTERMEDIATE = 5,
  CSI_IGNORE = 6,
  DCS_ENTRY = 7,
  DCS_PARAM = 8,
  DCS_INTERMEDIATE = 9,
  DCS_PASSTHROUGH = 10,
  DCS_IGNORE = 11,
  OSC_STRING = 12,
  SOS_PM_APC_STRING = 13,
}

export const STATE_COUNT = 14;

/** vt100.net's actions. clear, hook, unhook, osc_start and osc_end only run as entry/exit actions. */
export const enum ParserAction {
  IGNORE = 0,
  PRINT = 1,
  EXECUTE = 2,
  CLEAR = 3,
  COLLECT = 4,
  PARAM = 5,
  ESC_DISPATCH = 6,
  CSI_DISPATCH = 7,
  HOOK = 8,
  PUT = 9,
  UNHOOK = 10,
  OSC_START = 11,
  OSC_PUT = 12,
  OSC_END = 13,
}

/** Readable names for debugging and tests, indexed by the enum values. */
export const STATE_NAMES = [
  "GROUND",
  "ESCAPE",
  "ESCAPE_INTERMEDIATE",
  "CSI_ENTRY",
  "CSI_PARAM",
  "CSI_INTERMEDIATE",
  "CSI_IGNORE",
  "DCS_ENTRY",
  "DCS_PARAM",
  "DCS_INTERMEDIATE",
  "DCS_PASSTHROUGH",
  "DCS_IGNORE",
  "OSC_STRING",
  "SOS_PM_APC_STRING",
] as const;

export const ACTION_NAMES = [
  "ignore",
  "print",
  "execute",
  "clear",
  "collect",
  "param",
  "esc_dispatch",
  "csi_dispatch",
  "hook",
  "put",
  "unhook",
  "osc_start",
  "osc_put",
  "osc_end",
] as const;

// Limits. Past one of them the sequence is ignored: it is never dispatched (a DCS already hooked
// is unhooked with cancelled = true), and the parser never throws.

/** Fields of one CSI or DCS: parameters and colon sub-parameters counted together (as vte). */
export const MAX_PARAMS = 32;
/** A larger number saturates here instead of ignoring the sequence: xterm and vte clamp too, and
 * programs send e.g. CSI 9999 C to mean "as far as it goes". Fits the Int32Array the fields use. */
export const MAX_PARAM_VALUE = 0x7fffffff;
/** Intermediate bytes (0x20-0x2F) of one ESC, CSI or DCS sequence. DEC uses at most two. */
export const MAX_INTERMEDIATES = 2;
/** OSC payload bytes. A longer OSC string is dropped whole rather than truncated, because a cut
 * title, hyperlink or clipboard payload would be wrong, not just short. */
export const MAX_OSC_BYTES = 1 << 20;
/** DCS passthrough bytes. They are not buffered (dcsPut gets views of the input), so the limit
 * protects performers: past it they get dcsUnhook(true) and the rest of the string is ignored. */
export const MAX_DCS_BYTES = 1 << 20;
/** Code points handed to one print call. A longer printable run arrives in several calls. */
export const PRINT_BUFFER_SIZE = 4096;
