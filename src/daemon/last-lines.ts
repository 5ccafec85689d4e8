// The daemon's last lines to its clients (DAEMON_REPLACED, the replies still queued) go out before
// its image does: an exec (a handover) or an exit (a shutdown) closes every connection with what is
// still queued in the daemon, so a client behind on its reading lost them, the farewell included.
// Bounded: a client that does not read at all holds a restart or a stop up by FAREWELL_MS (the
// daemon's --farewell), no more.

/** How long the daemon waits for its clients to take their last lines before its image goes, by default. */
export const FAREWELL_MS = 3000;

/** A client whose queued lines can be waited for. */
export interface Written {
  /** Resolves once what is queued for it has been handed to its transport (or it closed). */
  written(): Promise<void>;
}

/** Resolves once every client's queue is written, or after `ms` (and the daemon's log says how many were not). */
export async function lastLinesWritten(clients: Iterable<Written>, ms = FAREWELL_MS): Promise<void> {
  let left = 0;
  const all = Promise.all(
    Array.from(clients, (c) => {
      left++;
      return c.written().then(() => void left--);
    }),
  );
  let timer: Timer | undefined;
  const late = new Promise<void>((r) => (timer = setTimeout(r, ms)));
  await Promise.race([all, late]);
  clearTimeout(timer);
  if (left > 0) console.error(`termd: ${left} client(s) did not read their last lines within ${ms} ms; going without them`);
}
