// Native JSON-RPC 2.0 (docs/protocol.md): requests and batches on the daemon's socket, each
// method validated and run by the daemon; events as `{"jsonrpc":"2.0","method":"event"}`
// notifications. ralph's dialect is this one with methods of its own.
import { RpcError } from "../protocol/errors.ts";
import { EncodedLine, type OutputFraming } from "../protocol/output-frame.ts";
import type { EventMessage } from "../protocol/schemas.ts";
import { settledOrNextTurn } from "../protocol/pacing.ts";
import { errorReply, isId, type Id, type Reply } from "../protocol/reply.ts";
import { Serialized, type Dialect, type DialectConnection, type NativeCaller } from "./dialect.ts";

/**
 * The most one batch's replies may hold, as the connection's own bound on unread replies: past it
 * the remaining requests are refused unrun (as geth does), so one line cannot ask for unbounded
 * output.
 */
const MAX_BATCH_REPLY = 16 * 1024 * 1024;
/** A batch's requests started in one turn: the rest of a long batch waits for later turns (as the daemon's TURN_REQUESTS). */
const BATCH_TURN = 16;

interface Request {
  id: Id;
  notification: boolean;
  method: string;
  params: unknown;
}

/** The request in a parsed message, or the reply refusing it. */
function parseRequest(msg: unknown): Request | Reply {
  if (typeof msg !== "object" || msg === null || Array.isArray(msg)) {
    return errorReply(null, new RpcError("INVALID_REQUEST", "a request must be a JSON object"));
  }
  const req = msg as Record<string, unknown>;
  const id: Id = isId(req.id) ? req.id : null;
  if (req.jsonrpc !== "2.0" || typeof req.method !== "string" || ("id" in req && !isId(req.id))) {
    return errorReply(id, new RpcError("INVALID_REQUEST", 'a request needs "jsonrpc":"2.0", a string "method" and an optional id'));
  }
  return { id, notification: !("id" in req), method: req.method, params: req.params };
}

/**
 * An output event as its notification line, the same text event() sends, written straight into
 * its bytes: base64 needs no escaping, so the payload is neither scanned by JSON.stringify nor
 * encoded a second time.
 */
export const nativeOutput: OutputFraming<EncodedLine> = {
  key: "native",
  frame: ({ session, session_id, timestamp, from, to, bytes }) => {
    const head = `{"jsonrpc":"2.0","method":"event","params":{"type":"output","session":${JSON.stringify(session)},"session_id":${JSON.stringify(session_id)},"timestamp":${JSON.stringify(timestamp)},"data":{"from":${from},"to":${to},"base64":"`;
    const tail = '"}}}\n';
    const base64 = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
    const headLength = Buffer.byteLength(head);
    const line = Buffer.allocUnsafe(headLength + base64.length + tail.length);
    line.write(head, 0, "utf8");
    line.write(base64, headLength, "latin1");
    line.write(tail, headLength + base64.length, "latin1");
    return new EncodedLine(line);
  },
};

export class JsonRpcConnection implements DialectConnection {
  constructor(protected readonly native: NativeCaller) {}

  get plainText(): boolean {
    return false;
  }

  get framing(): OutputFraming<EncodedLine> | null {
    return nativeOutput;
  }

  /** Runs one method; what a dialect built on this one adds methods through. */
  protected method(name: string, params: unknown): Promise<unknown> {
    return this.native.run(name, params);
  }

  async handle(msg: unknown): Promise<Reply | Serialized | null> {
    if (!Array.isArray(msg)) return this.request(msg);
    if (msg.length === 0) return errorReply(null, new RpcError("INVALID_REQUEST", "empty batch"));
    return this.batch(msg);
  }

  /** One request object; its reply, or null for a notification. */
  private async request(msg: unknown): Promise<Reply | null> {
    const req = parseRequest(msg);
    if (!("method" in req)) return req;
    const reply = await this.method(req.method, req.params).then(
      (result): Reply => ({ jsonrpc: "2.0", id: req.id, result }),
      (err): Reply => errorReply(req.id, err),
    );
    return req.notification ? null : reply;
  }

  /** A batch's requests run in order, paced like separate lines and taking turns as they do; their replies go out together. */
  private async batch(msgs: unknown[]): Promise<Serialized | null> {
    let size = 0;
    const replies: Promise<string | null>[] = [];
    for (const [i, m] of msgs.entries()) {
      if (size > MAX_BATCH_REPLY) {
        const req = parseRequest(m);
        const err = new RpcError("PAYLOAD_TOO_LARGE", `batch reply over ${MAX_BATCH_REPLY} bytes; send this request again`);
        const reply = "method" in req ? (req.notification ? null : errorReply(req.id, err)) : req;
        replies.push(Promise.resolve(reply && JSON.stringify(reply)));
        continue;
      }
      const json = this.request(m).then((r) => {
        if (!r) return null;
        const text = JSON.stringify(r);
        size += text.length;
        return text;
      });
      replies.push(json);
      if (i < msgs.length - 1) await settledOrNextTurn(json);
      if ((i + 1) % BATCH_TURN === 0 && i < msgs.length - 1) await this.native.later();
    }
    const out = (await Promise.all(replies)).filter((r) => r !== null);
    return out.length > 0 ? new Serialized(`[${out.join(",")}]`) : null;
  }

  malformed(message: string): Reply {
    return errorReply(null, new RpcError("PARSE_ERROR", message));
  }

  fault(err: unknown): Reply {
    return errorReply(null, err);
  }

  event(e: EventMessage): void {
    this.native.send({ jsonrpc: "2.0", method: "event", params: e });
  }
}

export const jsonRpc: Dialect = {
  name: "native",
  claims: (msg) => "jsonrpc" in msg,
  open: (native) => new JsonRpcConnection(native),
};
