// The dialects termd speaks, and which one a connection gets (docs/dialects.md): on the daemon's socket
// its first message decides — `jsonrpc` → native JSON-RPC; `type` → interminai; `cmd` → the
// console server; `method` without `jsonrpc` → TRL. On a session's own socket JSON-RPC is ralph's
// (native methods with the session implied, plus ralph's), and a socket made for a dialect
// (interminai's) answers in it what no dialect claims.
import type { Dialect } from "./dialect.ts";
import { jsonRpc } from "./json-rpc.ts";
import { ralph } from "./ralph.ts";
import { interminai } from "./interminai.ts";
import { consoleServer } from "./console.ts";
import { trl } from "./trl.ts";

export interface SocketKind {
  /** A session's own socket (its session implied), or the daemon's. */
  perSession: boolean;
  /** The socket's own dialect (session.create's socket_dialect). */
  own?: Dialect;
}

export interface DialectRegistry {
  /** The dialect of a connection whose first message is `first` (undefined: a line that was not JSON). */
  pick(first: unknown, socket: SocketKind): Dialect;
  /** A socket's own dialect by name (session.create's socket_dialect). */
  named(name: string): Dialect | undefined;
  /** Native JSON-RPC, and what a session socket made without a dialect of its own speaks. */
  readonly native: Dialect;
  readonly sessionDefault: Dialect;
}

/** Tried in order on a first message that is not JSON-RPC. */
const FOREIGN: Dialect[] = [interminai, consoleServer, trl];

export const DIALECTS: DialectRegistry = {
  pick(first, socket) {
    const rpc = socket.perSession ? ralph : jsonRpc;
    if (typeof first !== "object" || first === null || Array.isArray(first)) return socket.own ?? rpc;
    const msg = first as Record<string, unknown>;
    if (jsonRpc.claims(msg)) return rpc;
    // A session socket without a dialect of its own speaks JSON-RPC only: ralph answers -32600.
    if (socket.perSession && !socket.own) return ralph;
    return FOREIGN.find((d) => d.claims(msg)) ?? socket.own ?? rpc;
  },
  named: (name) => FOREIGN.find((d) => d.name === name),
  native: jsonRpc,
  sessionDefault: ralph,
};
