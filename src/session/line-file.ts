// A file of text lines written from one session's events (the timing journal, a recording):
// opened before the first byte, done when the session is disposed. An exit only closes the
// descriptor: a restart's run goes on in the same file, on the same clock. Between writes it is
// closed once idle (pty/append-file.ts). The daemon's line files (line-files.ts) write what each
// puts off.
import { AppendFile } from "../pty/append-file.ts";
import type { OutputStream, SessionEvent } from "./stream.ts";
import { clientLog } from "./client-log.ts";
import type { LineFiles } from "./line-files.ts";

/** Where a line file's lines come from: a session's events, until the session is disposed. */
export interface LineSource extends Pick<OutputStream, "on"> {
  onDispose(fn: () => void): void;
}

export abstract class SessionLineFile {
  private file: AppendFile | null;
  /** Lines put off (later()), not yet written. */
  private pending = "";
  private readonly started = performance.now();
  private readonly off: () => void;

  /**
   * `fd`: the file, open already (so a path that cannot be written fails before the session starts).
   * `files`: the daemon's line files, which write what this one puts off.
   */
  constructor(
    path: string,
    fd: number,
    session: LineSource,
    private readonly files: LineFiles,
  ) {
    this.file = new AppendFile(path, files.idle, fd);
    session.onDispose(() => this.close());
    this.off = session.on((e) => {
      if (e.type !== "exit") return this.onEvent(e, performance.now() - this.started);
      this.flush();
      this.file?.release();
    });
  }

  /** One session event, `ms` after the file was opened. */
  protected abstract onEvent(e: SessionEvent, ms: number): void;

  /** A write that fails (a full disk) ends the file: it stays a correct prefix, and the session goes on. */
  protected line(text: string): void {
    this.pending += text + "\n";
    this.flush();
  }

  /**
   * A line written soon (line-files.ts), with the others of that time in one write: a line for each
   * read of the output (a key's echo too) costs no system call of its own, and none before the
   * output event's subscribers have the bytes. A daemon killed meanwhile loses those lines only.
   */
  protected later(text: string): void {
    this.pending += text + "\n";
    this.files.putOff(this);
  }

  flush(): void {
    const text = this.pending;
    this.pending = "";
    this.files.written(this);
    if (this.file === null || text === "") return;
    try {
      this.file.append(Buffer.from(text));
    } catch (err) {
      clientLog.log(`termd: a session's journal or recording stopped: ${(err as Error).message}`);
      this.close();
    }
  }

  close(): void {
    this.flush();
    this.off();
    this.file?.release();
    this.file = null;
  }
}
