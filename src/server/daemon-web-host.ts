// The daemon as the HTTP transport's WebHost (web/web-host.ts): the one place web/ meets the daemon's
// connections, dispatch and subscriptions. A request to POST /rpc or /trl is a client of its own
// that lives as long as the request, through the same dialects and dispatch as the socket's lines;
// a subscription made there ends with it, and its events go nowhere.
import { Peer, NO_OUTLET } from "../daemon/peer.ts";
import { Connection, nativeCaller } from "../daemon/connection.ts";
import { connectionRefusal } from "../daemon/connection-limits.ts";
import type { Daemon } from "../daemon/daemon.ts";
import { run } from "../daemon/dispatch.ts";
import { logFault, replyError } from "../daemon/errors.ts";
import { LATENCY_BUCKETS_S } from "../daemon/metrics.ts";
import { Subscription } from "../daemon/subscription.ts";
import { Serialized, type Dialect } from "../dialects/dialect.ts";
import type { EventMessage } from "../protocol/schemas.ts";
import type { WebHost } from "../web/web-host.ts";

/** `body` answered by `dialect` for a client of its own that lives as long as the request. */
async function answer(
  daemon: Daemon,
  dialect: Dialect,
  body: Uint8Array[],
  refusesFileParams: boolean,
  signal: AbortSignal,
): Promise<string | null> {
  const close = () => daemon.dropPeer(peer);
  // The daemon closing, or the HTTP client going away, ends it, and so its long calls (a session.wait).
  const outlet = {
    writable: true,
    get plainText() {
      return speaker.plainText ?? false;
    },
    event: (e: EventMessage) => speaker.event(e),
    end: close,
  };
  const peer: Peer = daemon.addPeer(outlet, { refusesFileParams });
  const caller = nativeCaller(daemon, peer, dialect, { send: () => {}, end: close });
  // A request that comes while the daemon is being replaced runs nothing: the dialect answers it
  // with the farewell in its own shape; the client sends it again to the next image. One that came
  // before runs to its end, every native call it makes included.
  const farewell = daemon.farewell;
  const refuse = () => Promise.reject(farewell);
  const speaker = dialect.open(farewell ? { ...caller, call: refuse, run: refuse } : caller);
  signal.addEventListener("abort", close, { once: true });
  try {
    // A big body is parsed off the thread, as a big request line is.
    const parsed = await daemon.lineParser.parseBody(body);
    const reply = "malformed" in parsed ? speaker.malformed(parsed.malformed) : await speaker.handle(parsed.msg);
    if (reply === null) return null;
    return reply instanceof Serialized ? reply.json : JSON.stringify(reply);
  } finally {
    signal.removeEventListener("abort", close);
    close();
  }
}

export function webHost(daemon: Daemon): WebHost {
  return {
    get stopping() {
      return daemon.stopping;
    },
    connectionRefusal: () => connectionRefusal(daemon),
    connect: (sink, refusesFileParams) => new Connection(sink, daemon, undefined, null, refusesFileParams),
    answer: (dialect, body, scope) =>
      answer(
        daemon,
        dialect === "native" ? daemon.dialects.native : daemon.dialects.named("trl")!,
        body,
        scope.refusesFileParams,
        scope.signal,
      ),
    call: (method, params, signal) =>
      (daemon.farewell
        ? Promise.reject(daemon.farewell)
        : run(method, params, { daemon, peer: new Peer(NO_OUTLET), signal })) as Promise<never>,
    session: (ref) => daemon.store.get(ref),
    subscribe(session, sink, from, events, opts) {
      const sub = new Subscription(session, sink, from);
      sub.add(events, opts);
      return sub;
    },
    metrics: () => ({
      sessions: daemon.store.list().map((s) => ({ state: s.state, outputBytes: s.stream.output.end })),
      counters: daemon.counters,
      methods: [...daemon.metrics.methods],
      latencyBucketsS: LATENCY_BUCKETS_S,
      uptimeS: daemon.uptimeS(),
    }),
    wireError(where, err) {
      logFault(where, err);
      return replyError(err);
    },
  };
}
