// The errors a session raises about itself, each made in one place.
import { excerpt, quoted, TermdError } from "../terminal/errors.ts";

/**
 * A call that needs the program to run, on a session whose program has ended (or is ending: its
 * terminal closed, and the session is still "running" while its screen catches up).
 */
export function notRunning(s: { readonly name: string; readonly state: string }): TermdError {
  return new TermdError("SESSION_NOT_RUNNING", `session ${s.name} is ${s.state === "running" ? "ending" : s.state}`, { session: s.name });
}

/**
 * The terminal's refusal of input in the session's words: a terminal that closed under the write
 * as every call on an ended session says it; input the program left unread, with how long it waited.
 */
export function inputError(err: unknown, s: { readonly name: string; readonly state: string }, timeoutMs = 0): unknown {
  if (!(err instanceof TermdError)) return err;
  if (err.code === "SESSION_NOT_RUNNING") return notRunning(s);
  if (err.code !== "INPUT_NOT_READ") return err;
  const message = `session ${s.name}: ${err.message} within ${timeoutMs} ms`;
  return new TermdError("INPUT_NOT_READ", message, { ...err.details, session: s.name });
}

/** What a call on a session removed while it ran answers: as if it came just after, the session is not found. */
export function removedError(name: string): TermdError {
  return new TermdError("SESSION_NOT_FOUND", `session ${quoted(name)} was removed`, { session: excerpt(name) });
}
