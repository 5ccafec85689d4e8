// The sessions' own sockets (session.create's socket: interminai's and ralph's model), one per
// session at most: requests there need not name the session, and the socket goes when the
// session is removed, or when it ends if its dialect says so.
import type { UnixSocketListener } from "bun";
import { mkdirSync, renameSync, rmdirSync, unlinkSync } from "node:fs";
import { dirname } from "node:path";
import { RpcError } from "../protocol/errors.ts";
import type { ConnData } from "./connection.ts";
import type { DaemonContext } from "./daemon-context.ts";
import type { SessionSocketOptions } from "./daemon-options.ts";
import { listen } from "./listener.ts";
import { checkSocketPathLength, clearStaleSocket } from "./socket-path.ts";

/** One session's socket, as the handover record lists it. */
export interface SessionSocketEntry {
  session: string;
  path: string;
  dialect?: string;
  cleanup?: SessionSocketOptions["cleanup"];
}

export class SessionSockets {
  private readonly sockets = new Map<
    string,
    { path: string; listener: UnixSocketListener<ConnData>; cleanup: SessionSocketOptions["cleanup"]; dialect?: string }
  >();

  constructor(private readonly daemon: DaemonContext) {}

  /** Every session's socket, for the handover record. */
  list(): SessionSocketEntry[] {
    return [...this.sockets].map(([session, s]) => ({ session, path: s.path, dialect: s.dialect, cleanup: s.cleanup }));
  }

  /** A stale socket file at `path` is replaced; a live one is refused. */
  async open(
    sessionId: string,
    path: string,
    opts: SessionSocketOptions = {},
    /** The socket listening on `path` already, from the image this daemon took over from (handover.ts). */
    fd?: number,
  ): Promise<void> {
    if (this.sockets.has(sessionId)) throw new RpcError("INVALID_PARAMS", `session ${sessionId} has a socket already`);
    const { dialects, store } = this.daemon;
    const dialect = opts.dialect === undefined ? undefined : dialects.named(opts.dialect);
    if (opts.dialect !== undefined && !dialect)
      throw new RpcError("INVALID_PARAMS", `unknown socket_dialect ${JSON.stringify(opts.dialect)}`);
    let listener: UnixSocketListener<ConnData>;
    try {
      checkSocketPathLength(path, "name a shorter socket");
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      if (fd === undefined) await clearStaleSocket(path);
      listener = listen(this.daemon, fd === undefined ? { unix: path } : { fd }, sessionId, dialect);
    } catch (err) {
      throw new RpcError("INVALID_PARAMS", `cannot listen on ${path}: ${(err as Error).message}`);
    }
    this.sockets.set(sessionId, { path, listener, cleanup: opts.cleanup, dialect: opts.dialect });
    // A socket whose dialect says so (ralph's) goes when its session ends: its clients get the
    // last events and are closed, and a re-attach finds no socket instead of a session that will
    // never answer. (interminai's socket stays until `stop`: its status and wait report the exit.)
    if ((dialect ?? dialects.sessionDefault).endsWithSession) {
      void store
        .get(sessionId)
        .ended.then(() => this.close(sessionId))
        .catch(() => {});
    }
  }

  close(sessionId: string): void {
    const s = this.sockets.get(sessionId);
    if (!s) return;
    this.sockets.delete(sessionId);
    if (s.cleanup === "keep") {
      // Bun unlinks a unix socket when its listener stops; moved aside, the file survives, dead.
      const aside = `${s.path}.closing-${process.pid}`;
      try {
        renameSync(s.path, aside);
      } catch {}
      s.listener.stop(false);
      try {
        renameSync(aside, s.path);
      } catch {}
    } else {
      s.listener.stop(false);
      try {
        unlinkSync(s.path);
      } catch {}
      if (s.cleanup === "rmdir") {
        try {
          rmdirSync(dirname(s.path)); // only an empty folder: nothing but the socket was in it
        } catch {}
      }
    }
    // Its clients go last: one that sees its connection close must find the file settled. Each
    // gets what is left of its events first.
    for (const c of this.daemon.connections) if (c.impliedSession === sessionId) c.endWhenDelivered(sessionId);
  }

  closeAll(): void {
    for (const id of [...this.sockets.keys()]) this.close(id);
  }
}
