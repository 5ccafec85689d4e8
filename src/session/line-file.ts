// A file of text lines written from one session's events (the timing journal, a recording):
// opened before the first byte, closed when the session exits or is disposed, whichever is first.
import { closeSync, writeSync } from "node:fs";
import type { Session, SessionEvent } from "./session.ts";
import { clientLog } from "./client-log.ts";

export abstract class SessionLineFile {
  private fd: number | null;
  private readonly started = performance.now();
  private readonly off: () => void;

  constructor(fd: number, session: Session) {
    this.fd = fd;
    session.onDispose(() => this.close());
    this.off = session.on((e) => {
      if (e.type === "exit") this.close();
      else this.onEvent(e, performance.now() - this.started);
    });
  }

  /** One session event, `ms` after the file was opened. */
  protected abstract onEvent(e: SessionEvent, ms: number): void;

  /** A write that fails (a full disk) ends the file: it stays a correct prefix, and the session goes on. */
  protected line(text: string): void {
    if (this.fd === null) return;
    try {
      writeSync(this.fd, text + "\n");
    } catch (err) {
      clientLog.log(`termd: a session's journal or recording stopped: ${(err as Error).message}`);
      this.close();
    }
  }

  close(): void {
    this.off();
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}
