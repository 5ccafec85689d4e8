// A listening socket of the daemon's (its own, or a session's): each connection it accepts
// becomes a Connection, or past --max-connections is told why it is refused and closed.
import type { UnixSocketListener } from "bun";
import { chmodSync } from "node:fs";
import type { Dialect } from "../dialects/dialect.ts";
import { connectionRefusal } from "./connection-limits.ts";
import { type ConnData, Connection } from "./connection.ts";
import type { DaemonContext } from "./daemon-context.ts";
import { errorReply } from "./errors.ts";

/** How long a connection refused past --max-connections is kept half-open for its client to read why. */
const REFUSED_LINGER_MS = 1000;

/** Listens on `path` (created 0600), or on an inherited listening `fd`; connections there imply `session` when it is given. */
export function listen(
  daemon: DaemonContext,
  where: { unix: string } | { fd: number },
  session?: string,
  dialect?: Dialect,
): UnixSocketListener<ConnData> {
  const old = process.umask(0o177);
  try {
    // Bun.listen takes `fd` (a socket already listening) though its types name only unix and TCP.
    const listener = Bun.listen<ConnData>({
      ...(where as { unix: string }),
      // A client that shuts down its sending side still reads: it gets every reply, then the close.
      allowHalfOpen: true,
      socket: {
        open: (socket) => {
          const refused = connectionRefusal(daemon);
          if (refused) {
            // Said in JSON-RPC's words whatever the client speaks: it has sent nothing yet. Only
            // the sending side is closed at once: a client whose connect is still being reported
            // when the whole socket goes sees a reset instead of the reason. The rest goes when
            // the client closes, or after REFUSED_LINGER_MS.
            socket.data = {};
            socket.write(JSON.stringify(errorReply(null, refused)) + "\n");
            socket.shutdown();
            setTimeout(() => socket.end(), REFUSED_LINGER_MS).unref();
            return;
          }
          socket.data = { conn: new Connection(socket, daemon, session, dialect) };
        },
        data: (socket, chunk) => socket.data.conn?.onData(chunk),
        end: (socket) => {
          if (socket.data.conn) socket.data.conn.onEnd();
          else socket.end(); // a refused connection: its client read why
        },
        drain: (socket) => socket.data.conn?.flush(),
        close: (socket) => socket.data.conn?.onClose(),
        error: (socket) => socket.data.conn?.onClose(),
      },
    });
    if ("unix" in where) chmodSync(where.unix, 0o600);
    return listener;
  } finally {
    process.umask(old);
  }
}
