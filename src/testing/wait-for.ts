// What a wait tied to an input waits for (`waitFor`), and its form on the wire: session.input's
// `wait`, which the daemon registers before writing the input.
import type { InputWaitSchema } from "../protocol/schemas.ts";
import type * as v from "valibot";

/** A condition to wait for; a string or RegExp means text that appears. */
export type WaitFor =
  | string
  | RegExp
  | {
      text?: string;
      regex?: RegExp;
      /** Text that leaves the screen. */
      gone?: string;
      /** Any change of the screen. */
      change?: true;
      /** Quiet for this many ms. */
      idle?: number;
      exit?: true;
      timeout?: number;
    };

export interface InputOptions {
  /** Wait for this after the input, from a baseline taken before its first byte. */
  waitFor?: WaitFor;
}

/** A JavaScript RegExp in RE2's syntax, for the daemon (flags become inline ones). */
function re2(re: RegExp): string {
  const flags = [...re.flags].filter((f) => "ims".includes(f)).join("");
  return flags ? `(?${flags})${re.source}` : re.source;
}

export function describeWait(w: WaitFor): string {
  if (typeof w === "string") return JSON.stringify(w);
  if (w instanceof RegExp) return String(w);
  const parts: string[] = [];
  if (w.text !== undefined) parts.push(JSON.stringify(w.text));
  if (w.regex) parts.push(String(w.regex));
  if (w.gone !== undefined) parts.push(`${JSON.stringify(w.gone)} to go`);
  if (w.change) parts.push("a change");
  if (w.idle !== undefined) parts.push(`${w.idle} ms of quiet`);
  if (w.exit) parts.push("the exit");
  return parts.join(" or ");
}

/** session.input's `wait` for `w`. */
export function inputWait(w: WaitFor, timeout: number): v.InferInput<typeof InputWaitSchema> {
  const o = typeof w === "string" ? { text: w } : w instanceof RegExp ? { regex: w } : w;
  return {
    ...(o.text !== undefined ? { text: o.text } : {}),
    ...(o.regex ? { regex: re2(o.regex) } : {}),
    ...(o.gone !== undefined ? { gone: o.gone } : {}),
    ...(o.change ? { changed: true } : {}),
    ...(o.idle !== undefined ? { settle_ms: o.idle } : {}),
    ...(o.exit ? { exit: true } : {}),
    timeout_ms: o.timeout ?? timeout,
  };
}
