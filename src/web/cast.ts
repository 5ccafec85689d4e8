// A session as asciicast v2 over HTTP: GET /sessions/ID.cast downloads what it has written so far
// (timed by its journal, through session.cast), and GET /ws/cast/ID streams it live, one event per
// message as ht and asciinema's live streams do: the header, the current screen painted at time 0,
// then output and resizes as they happen; the socket closes when the session ends.
import type { ServerWebSocket } from "bun";
import { type OutputFrame, rawOutput } from "../protocol/output-frame.ts";
import type { EventMessage } from "../protocol/schemas.ts";
import type { AttachedStream } from "../session/stream.ts";
import { castEvent, castHeader, CastText } from "../session/cast.ts";
import type { EventSink, HostSubscription, WebHost } from "./web-host.ts";
import { HIGH_WATER } from "./ws-sink.ts";

const PAGE_BYTES = 1024 * 1024;

/** The recording's lines, page by page: up to the end of the output when the download began. */
export function castDownload(host: WebHost, session: string, signal: AbortSignal): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let from = 0;
  // A running session has no end: the download stops where its output stood when it began, even
  // if the program writes faster than the client reads.
  let until: number | undefined;
  return new ReadableStream({
    async pull(controller) {
      try {
        until ??= host.session(session).stream.output.end;
        const page = await host.call("session.cast", { session, from, max_bytes: PAGE_BYTES }, signal);
        const text = [...(page.header ? [page.header] : []), ...page.lines].map((l) => l + "\n").join("");
        if (text) controller.enqueue(encoder.encode(text));
        if (page.eof || page.to === from || page.to >= until) controller.close();
        from = page.to;
      } catch (err) {
        controller.error(err);
      }
    },
  });
}

/**
 * A subscriber like any other, that takes its output as bytes (the same bytes every live cast of
 * the session gets) and sends them on as cast events, timed from when this viewer began.
 */
export class LiveCast implements EventSink {
  readonly framing = rawOutput;
  private sub: HostSubscription | null = null;
  private offResize: (() => void) | null = null;
  private readonly text = new CastText();
  private startedAt = 0;
  private closed = false;

  constructor(
    private readonly ws: ServerWebSocket<unknown>,
    private readonly host: WebHost,
    private readonly session: AttachedStream,
  ) {}

  get writable(): boolean {
    return !this.closed && this.ws.getBufferedAmount() < HIGH_WATER;
  }

  private seconds(): number {
    return (performance.now() - this.startedAt) / 1000;
  }

  async start(): Promise<void> {
    const s = this.session;
    const snap = await s.stream.snapshot("ansi");
    if (this.closed) return;
    this.startedAt = performance.now();
    this.ws.sendText(
      castHeader({ size: snap.size, term: s.term, command: s.command, startedAt: new Date(), title: snap.title || undefined }),
    );
    this.ws.sendText(castEvent(0, "o", "\x1b[H\x1b[2J" + (snap.ansi ?? "")));
    this.offResize = s.stream.on((e) => {
      if (e.type === "resize" && !this.closed) this.ws.sendText(castEvent(this.seconds(), "r", `${e.size.cols}x${e.size.rows}`));
    });
    // From the offset the painted screen reflects; the daemon's own queries stay out of it.
    this.sub = this.host.subscribe(s, this, snap.offset, ["output", "exit"], { stripQueries: true });
  }

  sendFrame(frame: OutputFrame): void {
    if (this.closed || !(frame instanceof Uint8Array)) return;
    const data = this.text.push(frame);
    if (data) this.ws.sendText(castEvent(this.seconds(), "o", data));
  }

  sendEvent(e: EventMessage): void {
    if (!this.closed && e.type === "exit") this.ws.close(1000, "the session ended");
  }

  drain(): void {
    this.sub?.catchUp();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.sub?.dispose();
    this.offResize?.();
  }
}
