// The byte stream under a Client: Bun's own socket when the library runs under Bun (a call's round
// trip through node:net costs about 0.1 ms more there, as much as the daemon's whole answer), and
// node:net under Node. Both give the same small surface (transport-interface.ts). A remote daemon
// (`termd daemon --http`) is reached through its WebSocket (web-transport.ts) with the same surface.
import type { Transport, TransportEvents } from "./transport-interface.ts";
import { isDaemonUrl } from "./daemon-url.ts";

type BunSocket = {
  write(data: Uint8Array | string): number;
  pause(): void;
  resume(): void;
  end(): void;
  ref(): void;
  unref(): void;
};

type BunConnect = (opts: {
  unix: string;
  socket: {
    data(s: BunSocket, d: Uint8Array): void;
    drain(s: BunSocket): void;
    close(s: BunSocket): void;
    error(s: BunSocket, e: Error): void;
  };
}) => Promise<BunSocket>;

function bunConnect(): BunConnect | undefined {
  return (globalThis as { Bun?: { connect?: BunConnect } }).Bun?.connect;
}

export interface TransportOptions {
  /** The bearer token for a daemon's URL (default $TERMD_TOKEN). */
  token?: string;
  /**
   * The connection keeps the process alive only while a call waits for its reply (termd/testing's:
   * a Node test process ends when its tests do, with the daemon's connection still open).
   */
  holdOnlyWhileBusy?: boolean;
}

/** Opens `socketPath` (or a daemon's http(s):// URL); rejects when nothing answers there. */
export function openTransport(socketPath: string, on: TransportEvents, opts: TransportOptions = {}): Promise<Transport> {
  if (isDaemonUrl(socketPath))
    return import("./web-transport.ts").then((w) => w.openWebSocketTransport(socketPath, opts.token ?? process.env.TERMD_TOKEN, on));
  // sun_path holds 108 bytes with its NUL; say so rather than a bare "Failed to connect".
  const bytes = utf8Length(socketPath);
  if (bytes > 107) {
    const err: NodeJS.ErrnoException = new Error(
      `socket path ${socketPath.slice(0, 200)} is ${bytes} bytes long; a Unix socket path holds at most 107`,
    );
    err.code = "ENAMETOOLONG";
    return Promise.reject(err);
  }
  const bun = bunConnect();
  return bun ? openBun(bun, socketPath, on) : openNode(socketPath, on);
}

/**
 * The bytes of `s` in UTF-8 (a lone surrogate as U+FFFD's three), counted rather than encoded: a
 * command-line call's lines go to the socket as strings, and its first Buffer.byteLength or
 * TextEncoder.encode would cost it 0.5-0.6 ms here.
 */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

let encoder: TextEncoder | undefined;
const encode = (s: string) => (encoder ??= new TextEncoder()).encode(s);

async function openBun(connect: BunConnect, socketPath: string, on: TransportEvents): Promise<Transport> {
  // Bun's write takes what the kernel takes now; the rest waits here for `drain`, in order.
  const queue: Uint8Array[] = [];
  let closed = false;
  const flush = (s: BunSocket) => {
    while (queue.length > 0) {
      const head = queue[0]!;
      const n = s.write(head);
      if (n < 0) return;
      if (n < head.length) {
        queue[0] = head.subarray(n);
        return;
      }
      queue.shift();
    }
  };
  const socket = await connect({
    unix: socketPath,
    socket: {
      data: (_s, d) => on.data(d),
      drain: (s) => flush(s),
      close: () => {
        if (closed) return;
        closed = true;
        on.close();
      },
      error: (_s, e) => on.error(e),
    },
  });
  return {
    write(text) {
      // A line goes as a string when nothing waits before it; only what the kernel did not take
      // is encoded, to wait for `drain`.
      if (queue.length === 0) {
        const n = socket.write(text);
        if (n >= utf8Length(text)) return;
        queue.push(n > 0 ? encode(text).subarray(n) : encode(text));
        return;
      }
      queue.push(encode(text));
    },
    pause: () => socket.pause(),
    resume: () => socket.resume(),
    close: () => socket.end(),
    hold: (on) => (on ? socket.ref() : socket.unref()),
  };
}

/** node:net is loaded only here: under Bun, importing it costs a command-line call a few ms. */
async function openNode(socketPath: string, on: TransportEvents): Promise<Transport> {
  const { connect: netConnect } = await import("node:net");
  return new Promise((resolve, reject) => {
    const socket = netConnect(socketPath);
    const onError = (err: Error) => reject(err);
    socket.once("error", onError);
    socket.once("connect", () => {
      socket.off("error", onError);
      socket.on("data", (chunk: Buffer) => on.data(chunk));
      socket.on("close", () => on.close());
      socket.on("error", (err) => on.error(err));
      resolve({
        write: (text) => void socket.write(text),
        pause: () => void socket.pause(),
        resume: () => void socket.resume(),
        close: () => {
          socket.end();
          socket.destroy();
        },
        hold: (on) => void (on ? socket.ref() : socket.unref()),
      });
    });
  });
}
