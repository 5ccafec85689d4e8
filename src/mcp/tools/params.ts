// Params the tools share, described for the LLM that fills them in.
import * as v from "valibot";

export const Session = v.pipe(
  v.string(),
  v.minLength(1),
  v.description("The session's name (as start_session returned it or list_sessions shows it) or its id."),
);

export const TimeoutMs = (what: string, dflt: number) =>
  v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(3_600_000), v.description(`${what} (milliseconds, default ${dflt}).`)), dflt);
