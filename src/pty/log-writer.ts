// A session's log as the pty worker that reads its program writes it: each read is appended before
// it is handed on, so the daemon's thread never writes output to disk (it was the largest part of
// its time in a flood), and whatever the daemon's thread has seen is on disk already, should the
// daemon be killed. A write that fails (a full disk, a file-size limit) ends the log: the file
// stays a correct prefix, and the daemon's thread is told where it stopped and why.
import { AppendFile } from "./append-file.ts";
import { writeError } from "./disk-errors.ts";
import type { FdLedger } from "./fd-ledger.ts";
import type { IdleFiles } from "./idle-files.ts";

/** Where the file stopped taking output, and why. */
export interface LogFailure {
  end: number;
  error: string;
}

export class LogWriter {
  private file: AppendFile | null;
  /** Counts what the file took, piece by piece (made once: every read of a flood passes it). */
  private readonly advance = (n: number) => {
    this.at += n;
  };

  constructor(
    private readonly path: string,
    /** The output offset of the next byte (the file's size). */
    private at: number,
    /** The worker's open files, which close this one while it is idle. */
    idle: IdleFiles,
    /** Where the worker records the descriptor while it is open. */
    ledger: FdLedger | null,
  ) {
    // The daemon's thread made the file; one that is gone was removed with its session.
    this.file = new AppendFile(path, idle, undefined, false, ledger);
  }

  /** Appends one read; the failure, once, when the file takes no more. */
  write(bytes: Uint8Array): LogFailure | null {
    if (this.file === null) return null;
    try {
      this.file.append(bytes, this.advance);
      return null;
    } catch (err) {
      this.close();
      return { end: this.at, error: writeError(err, this.path) };
    }
  }

  close(): void {
    this.file?.release();
    this.file = null;
  }
}
