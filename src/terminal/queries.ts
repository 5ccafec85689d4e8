// The terminal queries termd answers, in one table: the daemon is their single answerer (the
// headless screen replies on the PTY), so the live stream an attached terminal gets has them cut
// out (the vt tap records where they are) and the unhandled-sequence log knows them as
// implemented. Each entry says which sequences of its identifier are the query, following the
// handler that answers it: xterm.js 6.0's InputHandler, or the Screen's own hooks (screen.ts).
import type { Params } from "../vt/index.ts";

export interface Query {
  name: string;
  /** As the specs write it. */
  form: string;
  /** xterm: @xterm/headless answers it; screen: the Screen's hook does (xterm leaves it unanswered). */
  by: "xterm" | "screen";
  kind: "csi" | "osc" | "dcs";
  /** CSI and DCS: private marker + intermediates + final (">c", "?$p"); OSC: its number. */
  id: string;
  /** Which sequences of that identifier ask (all of them when absent): CSI and DCS get their
   * first parameter (0 when omitted, as xterm reads it), OSC the text after its number's ';'. */
  asks?: (first: number, text: string) => boolean;
}

/** Parameter 0 omitted or 0: xterm answers DA only then ("CSI 1 c" is no query). */
const firstIs =
  (...values: number[]) =>
  (first: number) =>
    values.includes(first);

/** "?" for each colour asked: "10;?" the foreground, "10;?;?" the foreground and background. */
const colourQuery = (id: number) => (_first: number, text: string) => {
  const fields = text.split(";");
  return fields.every((f) => f === "?") && id + fields.length <= 13;
};

export const QUERIES: readonly Query[] = [
  { name: "DA1", form: "CSI Ps c", by: "xterm", kind: "csi", id: "c", asks: firstIs(0) },
  { name: "DA2", form: "CSI > Ps c", by: "xterm", kind: "csi", id: ">c", asks: firstIs(0) },
  { name: "DSR status and CPR", form: "CSI 5 n, CSI 6 n", by: "xterm", kind: "csi", id: "n", asks: firstIs(5, 6) },
  { name: "DECXCPR", form: "CSI ? 6 n", by: "xterm", kind: "csi", id: "?n", asks: firstIs(6) },
  { name: "DECRQM (ANSI)", form: "CSI Ps $ p", by: "xterm", kind: "csi", id: "$p" },
  { name: "DECRQM (DEC)", form: "CSI ? Ps $ p", by: "xterm", kind: "csi", id: "?$p" },
  { name: "DECRQSS", form: "DCS $ q Pt ST", by: "xterm", kind: "dcs", id: "$q" },
  { name: "XTVERSION", form: "CSI > 0 q", by: "screen", kind: "csi", id: ">q", asks: firstIs(0) },
  { name: "kitty keyboard flags", form: "CSI ? u", by: "screen", kind: "csi", id: "?u" },
  { name: "foreground colour", form: "OSC 10 ; ? ST", by: "screen", kind: "osc", id: "10", asks: colourQuery(10) },
  { name: "background colour", form: "OSC 11 ; ? ST", by: "screen", kind: "osc", id: "11", asks: colourQuery(11) },
  { name: "cursor colour", form: "OSC 12 ; ? ST", by: "screen", kind: "osc", id: "12", asks: colourQuery(12) },
];

/**
 * The longest query, ESC to terminator, whose bytes are cut out of an attached terminal's stream.
 * A longer one (a parameter written with many leading zeros) is let through: so an unfinished
 * sequence is held back from an attached terminal for at most this many bytes, and an image or a
 * clipboard OSC streams on as it arrives.
 */
export const MAX_QUERY_BYTES = 64;

const byId = (kind: Query["kind"]) => {
  const m = new Map<string, Query[]>();
  for (const q of QUERIES) if (q.kind === kind) m.set(q.id, [...(m.get(q.id) ?? []), q]);
  return m;
};
const CSI = byId("csi");
const OSC = byId("osc");
const DCS = byId("dcs");
/** Only these finals end a CSI query: most CSIs are decided by their final alone. */
const CSI_FINALS = new Set([...CSI.keys()].map((id) => id.at(-1)!));

/** The identifiers of one kind of query, for the implemented-sequence lists. */
export function queryIds(kind: Query["kind"], by?: Query["by"]): string[] {
  return QUERIES.filter((q) => q.kind === kind && (by === undefined || q.by === by)).map((q) => q.id);
}

export function isCsiQuery(marker: string, intermediates: string, final: string, params: Params): boolean {
  if (!CSI_FINALS.has(final)) return false;
  const qs = CSI.get(marker + intermediates + final);
  return qs?.some((q) => !q.asks || q.asks(params.get(0, 0), "")) === true;
}

/** `data` is the whole OSC payload, e.g. "11;?". */
export function isOscQuery(data: string): boolean {
  const semi = data.indexOf(";");
  const qs = OSC.get(semi < 0 ? data : data.slice(0, semi));
  const text = semi < 0 ? "" : data.slice(semi + 1);
  return qs?.some((q) => !q.asks || q.asks(0, text)) === true;
}

export function isDcsQuery(marker: string, intermediates: string, final: string, params: Params): boolean {
  const qs = DCS.get(marker + intermediates + final);
  return qs?.some((q) => !q.asks || q.asks(params.get(0, 0), "")) === true;
}
