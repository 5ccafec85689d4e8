// The regexes of waits, compiled on RE2 and shared: identical waits use one compiled pattern.
import type { RE2JS } from "re2js";
import { TermdError } from "../terminal/errors.ts";
import type { LinePattern } from "../terminal/find.ts";

/**
 * Patterns come from clients and run against text programs control, on the daemon's one thread:
 * a backtracking engine (JavaScript's RegExp) can take minutes on `(a+)+$`, so they run on RE2's
 * linear-time engine instead (RE2 syntax: no backreferences or lookaround).
 */
export function compileRegex(src: string): RegexPattern {
  let re: RE2JS;
  try {
    // Required on the first regex, not imported: its Unicode tables are ~2 MB of the daemon's
    // memory, and most daemons never see a regex wait.
    re = (require("re2js") as typeof import("re2js")).RE2JS.compile(src);
  } catch (err) {
    // RE2 keeps matching linear by having no lookaround and no backreferences: say so plainly.
    const missing = /\(\?<?[=!]/.test(src)
      ? "; RE2 has no lookaround ((?=, (?!, (?<=, (?<!)"
      : /\\[1-9]/.test(src)
        ? "; RE2 has no backreferences (\\1)"
        : "";
    throw new TermdError("BAD_ARGUMENT", `invalid regex (RE2 syntax): ${(err as Error).message}${missing}`);
  }
  return {
    match(line) {
      const m = re.matcher(line);
      return m.find() ? { col: m.start(), text: m.group(0) ?? "" } : null;
    },
    matchFrom(line, from) {
      const m = re.matcher(line);
      return m.find(from) ? { col: m.start(), text: m.group(0) ?? "" } : null;
    },
  };
}

/** A pattern that can also search from a column, without the anchors moving there. */
export interface RegexPattern extends LinePattern {
  matchFrom(line: string, from: number): { col: number; text: string } | null;
}

/** Compiled patterns by source: identical waits share one (bounded: a client's distinct patterns are not kept). */
const compiled = new Map<string, RegexPattern>();
const MAX_COMPILED = 256;

export function sharedRegex(src: string): RegexPattern {
  let re = compiled.get(src);
  if (!re) {
    re = compileRegex(src);
    if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value!);
    compiled.set(src, re);
  }
  return re;
}
