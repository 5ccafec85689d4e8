// A file that receives a copy of every output byte of a session: the console server's log_path,
// which its `script -q -f` wrote and its TUI polls. Opened (and truncated, as script does) before
// the program starts, so no byte can come first. The daemon's thread opens it and closes it when
// the run ends; the pty worker that reads the program writes each read to it (TeeWriter), right
// after the log, so the copy costs the daemon's thread nothing per byte. A write that fails stops
// the copy, and the daemon's thread is told why.
import { mkdirSync, openSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { TermdError } from "../terminal/errors.ts";

/** Opens `path` for the copy, creating its folder; INVALID_PARAMS when it cannot. */
export function openTee(path: string, append = false): number {
  try {
    mkdirSync(dirname(path), { recursive: true });
    return openSync(path, append ? "a" : "w", 0o600);
  } catch (err) {
    throw new TermdError("BAD_ARGUMENT", `cannot write log_path ${path}: ${(err as Error).message}`);
  }
}

/** The copy as the pty worker writes it: the descriptor is the daemon's thread's to close. */
export class TeeWriter {
  constructor(private fd: number | null) {}

  /** Copies one read whole; why it failed, once, when the copy stops. */
  write(bytes: Uint8Array): string | null {
    if (this.fd === null) return null;
    try {
      for (let at = 0; at < bytes.length; ) at += writeSync(this.fd, bytes, at);
      return null;
    } catch (err) {
      this.fd = null;
      return (err as Error).message;
    }
  }
}
