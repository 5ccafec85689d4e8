// A live asciicast recording of one session (session.create's `record`): the header with the
// size and TERM, then output, input and resize events as they happen. It listens to the
// session's events, so recording changes nothing on the data path.
import { closeSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import { castEvent, castHeader, CastText } from "./cast.ts";
import { SessionLineFile, type LineSource } from "./line-file.ts";
import type { LineFiles } from "./line-files.ts";
import type { Size } from "../protocol/schemas.ts";
import type { SessionEvent } from "./stream.ts";

/** The session a recording records: its stream, and what the header says of it. */
interface Recorded {
  readonly stream: LineSource & { readonly size: Size };
  readonly term: string;
  readonly command: readonly string[];
}

export class Recorder extends SessionLineFile {
  private readonly output = new CastText();
  private readonly input = new CastText();

  /** Opens the file first, so a path that cannot be written fails before any program starts. */
  static open(path: string, files: LineFiles): { attach(session: Recorded): Recorder; cancel(): void } {
    mkdirSync(dirname(path), { recursive: true });
    const fd = openSync(path, "w", 0o600);
    return { attach: (session) => new Recorder(path, fd, session, files), cancel: () => closeSync(fd) };
  }

  private constructor(path: string, fd: number, session: Recorded, files: LineFiles) {
    super(path, fd, session.stream, files);
    this.line(castHeader({ size: session.stream.size, term: session.term, command: session.command, startedAt: new Date() }));
  }

  protected onEvent(e: SessionEvent, ms: number): void {
    const t = ms / 1000;
    if (e.type === "output") this.event(t, "o", this.output.push(e.data));
    else if (e.type === "input" && !e.secret) this.event(t, "i", this.input.push(e.data));
    else if (e.type === "resize") this.line(castEvent(t, "r", `${e.size.cols}x${e.size.rows}`));
  }

  private event(t: number, code: "o" | "i", text: string): void {
    if (text) this.line(castEvent(t, code, text));
  }
}
