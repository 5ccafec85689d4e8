// What one connection may make the daemon hold at once. Each is a named limit with a default no
// legitimate client meets (`termd daemon --max-waits` / `--max-subscriptions` move them); past
// one, that request fails with LIMIT_REACHED saying what to do, and the connection, like every
// other, goes on being served. Counts are the connection's own: a wait that ends (answer,
// timeout, or the connection closing) and an unsubscribe or removed session give their place back.
import { RpcError } from "../protocol/errors.ts";
import type { CallContext } from "./command.ts";
import type { DaemonContext } from "./daemon-context.ts";

/**
 * Pending session.wait calls per connection. A pending wait is cheap (a timer; identical waits are
 * checked once per screen update as a group, text waits only when the update's new rows may hold
 * their text), but without a bound one client can pile up millions; the bench keeps 4,096 pending
 * on one connection, and 5,000 over 10.
 */
export const MAX_WAITS_PER_CONNECTION = 4096;

/**
 * Sessions one connection is subscribed to. As many as a daemon holds by default
 * (`--max-sessions`), so "subscribe to every session" fits unless one of the two is changed.
 */
export const MAX_SUBSCRIPTIONS_PER_CONNECTION = 10_000;

/**
 * Connections one daemon serves at once: the socket's, its sessions' sockets', and HTTP's (a
 * WebSocket, or one request to /rpc or /trl). Each holds a descriptor and buffers; without a bound
 * only `ulimit -n` stops a client that opens them in a loop, and then with accept failing for all.
 */
export const MAX_CONNECTIONS = 4096;

/** Why one more connection is refused (LIMIT_REACHED), or null when it may come in. */
export function connectionRefusal(daemon: DaemonContext): RpcError | null {
  const max = daemon.options.maxConnections ?? MAX_CONNECTIONS;
  if (daemon.connections.size < max) return null;
  return new RpcError(
    "LIMIT_REACHED",
    `the daemon serves ${daemon.connections.size} connections, its most (termd daemon --max-connections ${max}); close idle ones (a client per process, not per request) or raise the limit`,
    { max_connections: max },
  );
}

/** Runs a session.wait as one of its connection's pending waits, refused past the limit. */
export async function asPendingWait<T>(ctx: CallContext, wait: () => Promise<T>): Promise<T> {
  const max = ctx.daemon.options.maxWaits ?? MAX_WAITS_PER_CONNECTION;
  const { peer } = ctx;
  if (peer.pendingWaits >= max) {
    throw new RpcError(
      "LIMIT_REACHED",
      `this connection already has ${peer.pendingWaits} session.wait calls pending, the most one connection may (termd daemon --max-waits ${max}); let some answer or time out first, give them a shorter timeout_ms, or spread them over more connections`,
      { max_waits: max },
    );
  }
  peer.pendingWaits++;
  try {
    return await wait();
  } finally {
    peer.pendingWaits--;
  }
}

/** Refuses a subscribe that would leave the connection subscribed to more sessions than allowed. */
export function checkSubscriptions(ctx: CallContext, adding: number): void {
  const max = ctx.daemon.options.maxSubscriptions ?? MAX_SUBSCRIPTIONS_PER_CONNECTION;
  const now = ctx.peer.subscriptionCount;
  if (now + adding <= max) return;
  throw new RpcError(
    "LIMIT_REACHED",
    `this connection would be subscribed to ${now + adding} sessions, the most one connection may is ${max} (termd daemon --max-subscriptions ${max}); name the sessions you want instead of all of them, or session.unsubscribe from some first`,
    { max_subscriptions: max, subscribed: now },
  );
}
