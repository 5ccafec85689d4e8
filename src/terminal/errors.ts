// What the terminal and session layers throw when a request cannot be served: a domain error
// with a code from a closed list, a readable message, and details that say which thing it was
// about. These layers know nothing of the wire; the daemon's errors.ts is the one place that turns
// a TermdError into a protocol error (each code maps to one wire error name).

export type TermdErrorCode =
  /** No session has that id or name. */
  | "SESSION_NOT_FOUND"
  /** The session's program has ended (or never started): it takes no input, signals or resizes. */
  | "SESSION_NOT_RUNNING"
  /** Another session has that name already. */
  | "NAME_TAKEN"
  /** The program could not be started (no such command, a cwd that is not a directory). */
  | "SPAWN_FAILED"
  /** exec.run on a session whose program is not an interactive POSIX shell. */
  | "NOT_A_SHELL"
  /** The shell is already running a command, or has a job in the foreground. */
  | "SESSION_BUSY"
  /** The program has not read what it was sent (its unread input is bounded). */
  | "INPUT_NOT_READ"
  /** An argument is well-formed but means nothing here: a key token, a signal, a regex, a path. */
  | "BAD_ARGUMENT"
  /** A named limit is reached (--max-sessions): nothing more of that kind until some goes. */
  | "LIMIT_REACHED"
  /** A mouse event for a program that asked for no mouse reporting (or none that hears that event). */
  | "MOUSE_NOT_ENABLED"
  /** Another connection has taken the session over: its input, in-shell commands and resizes only. */
  | "SESSION_HELD";

export class TermdError extends Error {
  override readonly name = "TermdError";

  constructor(
    readonly code: TermdErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** Longest part of a client's own text an error quotes back: a 9 MiB name must not make a 20 MB reply. */
export const MAX_QUOTED = 64;

/** `text` as an error quotes it: JSON-quoted, cut at MAX_QUOTED characters with how long it was. */
export function quoted(text: string): string {
  if (text.length <= MAX_QUOTED) return JSON.stringify(text);
  return `${JSON.stringify(text.slice(0, MAX_QUOTED))}… (${text.length} characters)`;
}

/** `text` as an error's details carry it: as it is, or cut like `quoted`. */
export function excerpt(text: string): string {
  return text.length <= MAX_QUOTED ? text : `${text.slice(0, MAX_QUOTED)}…`;
}

/**
 * A fault (anything thrown that is no domain error) as one log entry's text: its message and its
 * stack, whose frames name the source files and lines (the compiled binary ships source maps).
 * Logging the error object instead has the runtime quote the line it was thrown from, which in
 * the binary is a whole minified line of a few kilobytes.
 */
export function faultText(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  return err.stack ?? `${err.name}: ${err.message}`;
}
