// The screen before an input, which a wait tied to that input (session.input's `wait`, a wait's
// `fresh`) counts its matches against.
import type { WaitInput } from "../protocol/schemas.ts";
import { findAll, frameOf, matchKey } from "./frame.ts";
import { sharedRegex } from "./regex-cache.ts";
import type { ProgramStream } from "./stream.ts";

/**
 * A wait tied to an input (session.input's `wait`) starts from the screen before the input: its
 * text and regex count only where they did not already match (the same text at the same place in
 * the buffer, scrollback included), so a prompt already on the screen does not answer a wait for
 * the next one; `changed` means changed from that screen.
 */
export interface Baseline {
  hash: string;
  /** `bufferRow:col:text` of every match on the screen before the input. */
  seen: Set<string>;
}

/** The screen now (or frame `f`), as the baseline of a wait tied to an input that is about to be written. */
export function baselineOf(s: ProgramStream, p: Pick<WaitInput, "text" | "regex">, f = frameOf(s)): Baseline {
  const seen = new Set<string>();
  for (const needle of [p.text, p.regex !== undefined ? sharedRegex(p.regex) : undefined]) {
    if (needle !== undefined) for (const m of findAll(f.lines, needle)) seen.add(matchKey(f, m));
  }
  return { hash: f.hash, seen };
}
