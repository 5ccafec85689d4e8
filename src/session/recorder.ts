// A live asciicast recording of one session (session.create's `record`): the header with the
// size and TERM, then output, input and resize events as they happen. It listens to the
// session's events, so recording changes nothing on the data path.
import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { castEvent, castHeader, CastText } from "./cast.ts";
import type { Session } from "./session.ts";

export class Recorder {
  private fd: number | null;
  private readonly started = performance.now();
  private readonly output = new CastText();
  private readonly input = new CastText();
  private readonly off: () => void;

  /** Opens the file first, so a path that cannot be written fails before any program starts. */
  static open(path: string): { attach(session: Session): Recorder; cancel(): void } {
    mkdirSync(dirname(path), { recursive: true });
    const fd = openSync(path, "w", 0o600);
    return { attach: (session) => new Recorder(fd, session), cancel: () => closeSync(fd) };
  }

  private constructor(fd: number, session: Session) {
    this.fd = fd;
    this.line(castHeader({ size: session.size, term: session.term, command: session.command, startedAt: new Date() }));
    session.onDispose(() => this.close());
    this.off = session.on((e) => {
      const t = (performance.now() - this.started) / 1000;
      if (e.type === "output") this.event(t, "o", this.output.push(e.data));
      else if (e.type === "input") this.event(t, "i", this.input.push(e.data));
      else if (e.type === "resize") this.line(castEvent(t, "r", `${e.size.cols}x${e.size.rows}`));
      else if (e.type === "exit") this.close();
    });
  }

  private event(t: number, code: "o" | "i", text: string): void {
    if (text) this.line(castEvent(t, code, text));
  }

  private line(text: string): void {
    if (this.fd !== null) writeSync(this.fd, text + "\n");
  }

  close(): void {
    this.off();
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}
