// One connection over a socket or a WebSocket: a line channel (line-channel.ts) carrying one
// client (peer.ts) that speaks the dialect its first message picked. Requests run concurrently
// through dispatch; each dialect puts replies and events in its own shape.
import { EncodedLine, type OutputFrame, type OutputFraming } from "../protocol/output-frame.ts";
import type { RpcError } from "../protocol/errors.ts";
import { errorReply, isId, type Id } from "../protocol/reply.ts";
import type { EventMessage } from "../protocol/schemas.ts";
import { Serialized, type Dialect, type DialectConnection, type NativeCaller } from "../dialects/dialect.ts";
import type { Peer, PeerOutlet } from "./peer.ts";
import type { CallContext } from "./command.ts";
import type { DaemonContext } from "./daemon-context.ts";
import { run } from "./dispatch.ts";
import { logFault } from "./errors.ts";
import type { ByteSink } from "../protocol/byte-sink.ts";
import { LineChannel, type LineHandler } from "./line-channel.ts";
import type { LineParsed } from "./line-parser.ts";
import { turns } from "./turns.ts";

export interface ConnData {
  conn?: Connection;
}

/** How `dialect` reaches the native methods, events and per-session state for `client`. */
export function nativeCaller(daemon: DaemonContext, peer: Peer, dialect: Dialect, out: Pick<NativeCaller, "send" | "end">): NativeCaller {
  const ctx: CallContext = { daemon, peer, signal: peer.signal };
  return {
    call: (method, params) => run(method, params, ctx) as Promise<never>,
    run: (method, params) => run(method, params, ctx),
    session: peer.impliedSession,
    sessionState: (id, init) => daemon.dialectState(id, dialect.name, init),
    send: out.send,
    end: out.end,
    signal: peer.signal,
    later: () => turns.later(),
  };
}

/** The channel's lines go to the dialect; the client's events and end go to the channel. */
export class Connection implements LineHandler, PeerOutlet {
  private readonly peer: Peer;
  private readonly channel: LineChannel;
  /** The dialect the first message picked, and this connection's side of it. */
  private dialect: Dialect | null = null;
  private speaker: DialectConnection | null = null;
  /** The farewell, told before this connection's first line picked its dialect: that line is answered with it, and runs nothing. */
  private farewellDue: RpcError | null = null;

  constructor(
    sink: ByteSink,
    private readonly daemon: DaemonContext,
    /** The session a per-session socket stands for. */
    impliedSession?: string,
    /** The dialect of a per-session socket, for a first line no dialect claims (or not JSON). */
    private readonly socketDialect: Dialect | null = null,
    /** Params that write files on the daemon's machine are refused (a remote client's connection). */
    refusesFileParams = false,
  ) {
    this.channel = new LineChannel(sink, this, daemon.counters, daemon.lineParser.offThread);
    this.peer = daemon.addPeer(this, { impliedSession, refusesFileParams });
  }

  onData(chunk: Uint8Array): void {
    this.channel.onData(chunk);
  }

  /** The transport has room again. */
  flush(): void {
    this.channel.flush();
  }

  /** The client ended its sending side: its requests are answered, then the connection ends. */
  onEnd(): void {
    this.channel.inputEnd();
  }

  /** The transport closed. */
  onClose(): void {
    this.channel.close();
  }

  get writable(): boolean {
    return this.channel.writable;
  }

  get plainText(): boolean {
    return this.speaker?.plainText ?? false;
  }

  get framing(): OutputFraming | null {
    return this.speaker?.framing ?? null;
  }

  /** An output event as its dialect's framing made it: the line goes out as it is. */
  frame(frame: OutputFrame): void {
    if (frame instanceof EncodedLine) this.channel.sendFrame(frame);
  }

  event(e: EventMessage): void {
    this.speaker?.event(e);
  }

  end(): void {
    this.channel.end();
  }

  /**
   * The last line: an error for no request (the client library fails every call with it), in the
   * native dialect and ralph's, which extends it; in the others none, but nothing more either.
   */
  farewell(reason: RpcError, id: Id = null): void {
    if (this.dialect === null) {
      this.farewellDue = reason;
      return;
    }
    this.channel.last(this.dialect.name === "native" || this.dialect.name === "ralph" ? errorReply(id, reason) : undefined);
  }

  written(): Promise<void> {
    return this.channel.written();
  }

  drained(): void {
    this.peer.drained();
  }

  closed(): void {
    this.daemon.dropPeer(this.peer);
  }

  /** This connection's dialect, picked by its first message (undefined: a line that was not JSON). */
  private speak(first: unknown): DialectConnection {
    if (this.speaker) return this.speaker;
    const dialect = this.daemon.dialects.pick(first, {
      perSession: this.peer.impliedSession !== undefined,
      own: this.socketDialect ?? undefined,
    });
    this.dialect = dialect;
    return (this.speaker = dialect.open(
      nativeCaller(this.daemon, this.peer, dialect, { send: (msg) => this.channel.send(msg), end: () => this.channel.end() }),
    ));
  }

  line(parsed: LineParsed): Promise<unknown> {
    if (this.farewellDue) {
      const msg = "msg" in parsed ? parsed.msg : undefined;
      this.speak(msg);
      // With the request's id: the client then knows that this call, and any behind it, did not
      // run, where a farewell for no request may have cut one under way.
      this.farewell(this.farewellDue, requestId(msg));
      return Promise.resolve();
    }
    if ("malformed" in parsed) {
      this.channel.send(this.speak(undefined).malformed(parsed.malformed));
      if (this.dialect?.oneShot) this.channel.end();
      return Promise.resolve();
    }
    const { msg } = parsed;
    const speaker = this.speak(msg);
    return speaker
      .handle(msg)
      .catch((err: unknown) => {
        // A dialect answers its own errors; one that threw anyway is a fault, and the client
        // still gets an answer in its dialect's shape rather than none.
        logFault(`the ${this.dialect?.name ?? "native"} dialect`, err);
        return speaker.fault
          ? speaker.fault(err)
          : speaker.malformed(`internal error: ${err instanceof Error ? err.message : String(err)}`);
      })
      .then((reply) => {
        if (reply instanceof Serialized) this.channel.sendLine(reply.json);
        else if (reply !== null) this.channel.send(reply);
        if (this.dialect?.oneShot) this.channel.end();
      });
  }
}

/** A JSON-RPC request's id; null for anything else (a batch, a line that was not JSON). */
function requestId(msg: unknown): Id {
  const id = typeof msg === "object" && msg !== null && !Array.isArray(msg) ? (msg as { id?: unknown }).id : null;
  return isId(id) ? id : null;
}
