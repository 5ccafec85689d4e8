// Which escape sequences somebody implements: @xterm/headless 6.0 (the handlers its InputHandler
// registers in its InputHandler) or termd itself (the vt tap, and the queries of
// queries.ts, whose table adds its identifiers here). A sequence in neither list goes to the
// session's unhandled-sequence log, so `printf '\e[?9999h'` shows up there and SGR colours do not.
//
// Granularity follows xterm's own dispatch: a registered CSI counts as implemented whatever its
// parameters (xterm ignores what it does not know inside SGR, DSR, window ops), except SM/RM and
// DECSET/DECRST, whose every mode number is checked, since "which mode" is the point of them.
import type { Params } from "../vt/index.ts";
import { queryIds } from "./queries.ts";

/** CSI identifiers as private marker + intermediates + final; the queries come from their table. */
const XTERM_CSI = new Set([
  ..."@ABCDEFGHIJKLMPSTXZ`abdefghlmrstu",
  " @",
  " A",
  " q",
  "!p",
  '"q',
  "'}",
  "'~",
  "?J",
  "?K",
  "?h",
  "?l",
  ...queryIds("csi", "xterm"),
]);

/** termd's own: the kitty keyboard stack, and the queries the Screen answers itself. */
const TERMD_CSI = new Set([">u", "<u", "=u", ...queryIds("csi", "screen")]);

/** SM / RM (CSI Pm h / l): insert mode and automatic newline. */
const XTERM_ANSI_MODES = new Set([4, 20]);

/** DECSET / DECRST modes xterm.js acts on (setModePrivate / resetModePrivate; 2 is set only). */
const XTERM_DEC_MODES = new Set([
  1, 2, 3, 6, 7, 9, 12, 25, 45, 47, 66, 1000, 1002, 1003, 1004, 1005, 1006, 1015, 1016, 1047, 1048, 1049, 2004, 2026,
]);

/** Character sets xterm.js can designate (its CHARSETS table). */
const CHARSETS = "0AB4C5RQKYE6ZH7=";

/** OSC numbers: xterm's title, colour and hyperlink commands; termd's cwd, shell marks, and the
 * colour queries. */
const XTERM_OSC = new Set([0, 1, 2, 4, 8, 10, 11, 12, 104, 110, 111, 112]);
const TERMD_OSC = new Set([7, 133, 633, ...queryIds("osc").map(Number)]);

/** DCS identifiers: xterm's only one is a query (DECRQSS). */
const XTERM_DCS = new Set(queryIds("dcs", "xterm"));

/** Called for every CSI the program writes, so it allocates nothing for the common ones. */
export function csiImplemented(marker: string, intermediates: string, final: string, params: Params): boolean {
  const plain = marker === "" && intermediates === "";
  if (plain && final !== "h" && final !== "l") return XTERM_CSI.has(final);
  const id = plain ? final : marker + intermediates + final;
  if (TERMD_CSI.has(id)) return true;
  if (!XTERM_CSI.has(id)) return false;
  if (intermediates !== "" || (final !== "h" && final !== "l")) return true;
  const known = marker === "?" ? XTERM_DEC_MODES : XTERM_ANSI_MODES;
  for (let i = 0; i < params.length; i++) {
    const m = params.get(i, 0);
    if (!known.has(m) || (m === 2 && marker === "?" && final === "l")) return false;
  }
  return true;
}

export function escImplemented(intermediates: string, final: string): boolean {
  if (intermediates === "") return "78DEHM=>cno|}~\\".includes(final);
  if (intermediates.length !== 1) return false;
  if (intermediates === "%") return final === "@" || final === "G";
  if (intermediates === "#") return final === "8";
  return "()*+-./".includes(intermediates) && CHARSETS.includes(final);
}

/** `id` is the OSC's number, NaN when it does not start with one. */
export function oscImplemented(id: number): boolean {
  return XTERM_OSC.has(id) || TERMD_OSC.has(id);
}

export function dcsImplemented(marker: string, intermediates: string, final: string): boolean {
  return XTERM_DCS.has(marker + intermediates + final);
}
