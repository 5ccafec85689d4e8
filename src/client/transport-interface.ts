// The small surface every transport under a Client gives (transport.ts's sockets, web-transport.ts's
// WebSocket), apart from both so that neither imports the other for it.

export interface TransportEvents {
  data(chunk: Uint8Array): void;
  close(): void;
  error(err: Error): void;
}

export interface Transport {
  write(text: string): void;
  pause(): void;
  resume(): void;
  close(): void;
  /** Whether the open connection keeps the process alive (a WebSocket always does). */
  hold(on: boolean): void;
}
