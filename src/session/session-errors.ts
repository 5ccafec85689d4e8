// The errors a session raises about itself, each made in one place.
import { excerpt, quoted, TermdError } from "../terminal/errors.ts";

/**
 * A call that needs the program to run, on a session whose program has ended (or is ending: its
 * terminal closed, and the session is still "running" while its screen catches up).
 */
export function notRunning(s: { readonly name: string; readonly state: string }): TermdError {
  return new TermdError("SESSION_NOT_RUNNING", `session ${s.name} is ${s.state === "running" ? "ending" : s.state}`, { session: s.name });
}

/** What a call on a session removed while it ran answers: as if it came just after, the session is not found. */
export function removedError(name: string): TermdError {
  return new TermdError("SESSION_NOT_FOUND", `session ${quoted(name)} was removed`, { session: excerpt(name) });
}
