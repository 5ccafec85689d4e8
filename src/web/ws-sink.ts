// A line channel's byte stream carried over a WebSocket: each newline-ended JSON line the channel
// writes goes out as one text message, and each message received is one line in. Backpressure is
// the socket's buffered amount: past HIGH_WATER the channel's queue waits for `drain`, as it
// waits for a Unix socket's. An output event made once for every subscriber goes as its text,
// neither decoded nor split here.
import type { ServerWebSocket } from "bun";
import type { EncodedLine } from "../protocol/output-frame.ts";
import type { ByteSink } from "../protocol/byte-sink.ts";

/** Bytes a WebSocket may hold unsent before what writes to it waits for `drain`. */
export const HIGH_WATER = 1024 * 1024;

export class WebSocketSink implements ByteSink {
  private readonly decoder = new TextDecoder();
  private partial = "";

  constructor(private readonly ws: ServerWebSocket<unknown>) {}

  write(data: Uint8Array): number {
    if (this.ws.readyState !== WebSocket.OPEN) return -1;
    if (this.ws.getBufferedAmount() > HIGH_WATER) return 0;
    const lines = (this.partial + this.decoder.decode(data, { stream: true })).split("\n");
    this.partial = lines.pop()!;
    for (const line of lines) if (this.ws.sendText(line) === 0) return -1;
    return data.length;
  }

  writeLine(line: EncodedLine): number {
    // Only between whole lines (the channel writes whole lines here): a partial one comes first.
    if (this.partial !== "") return this.write(line.bytes);
    if (this.ws.readyState !== WebSocket.OPEN) return -1;
    if (this.ws.getBufferedAmount() > HIGH_WATER) return 0;
    return this.ws.sendText(line.text) === 0 ? -1 : line.bytes.length;
  }

  end(): void {
    this.ws.close(1000, "closed by the daemon");
  }

  pause(): void {
    this.ws.pause();
  }

  resume(): void {
    this.ws.resume();
  }
}

const encoder = new TextEncoder();

/**
 * One message received as one line for the connection: a pretty-printed message's newlines are
 * JSON whitespace (a raw newline cannot sit inside a JSON string), so they become spaces.
 */
export function messageAsLine(message: string | Uint8Array): Uint8Array {
  const text = typeof message === "string" ? message : new TextDecoder().decode(message);
  return encoder.encode(text.replace(/[\r\n]/g, " ") + "\n");
}
