// Params the tools share, described for the LLM that fills them in.
import * as v from "valibot";

export const Session = v.pipe(
  v.string(),
  v.minLength(1),
  v.description("The session's name (as start_session returned it or list_sessions shows it) or its id."),
);

export const TimeoutMs = (what: string, dflt: number) =>
  v.optional(
    v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(3_600_000), v.description(`${what} (milliseconds, default ${dflt}).`)),
    dflt,
  );

/** submit's and press_keys' way to return what their input did, in the same call. */
export const ShowChange = {
  show_change: v.optional(
    v.pipe(
      v.boolean(),
      v.description(
        "Also wait until the screen has been idle for idle_ms (at most 10 s) and return the rows the input changed: one call instead of this and wait_for.",
      ),
    ),
  ),
  idle_ms: v.optional(
    v.pipe(
      v.number(),
      v.integer(),
      v.minValue(1),
      v.maxValue(10_000),
      v.description("With show_change: how long the screen must stay unchanged (default 300)."),
    ),
  ),
};

/** session.input's `wait` for ShowChange: the screen idle after the input (or 10 s). */
export function showChangeWait(p: { show_change?: boolean; idle_ms?: number }): { settle_ms: number; timeout_ms: number } | undefined {
  return p.show_change ? { settle_ms: p.idle_ms ?? 300, timeout_ms: 10_000 } : undefined;
}
