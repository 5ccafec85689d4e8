// The waits' time limits the daemon and its clients share. A module of its own, free of the
// schemas: the command line's `termd wait` needs the default, and loading valibot and every schema
// for it cost the command 2 ms and 250 page faults (the bench's `cli` section).

/** session.wait's `timeout_ms` when none is given (and `termd wait --timeout`'s). */
export const WAIT_TIMEOUT_MS = 10_000;

/**
 * The longest the daemon waits for the prompt a shell that marks its prompts draws after a command
 * (a slow PROMPT_COMMAND, a loaded machine) before it types a safe submit's line or answers
 * exec.run anyway; MCP's submit gives a prompt no longer before it judges the input line.
 */
export const PROMPT_AFTER_MS = 2000;
