// A file that receives a copy of every output byte of a session: the console server's log_path,
// which its `script -q -f` wrote and its TUI polls. Opened (and truncated, as script does) before
// the program starts, so no byte can come first; closed when the session ends.
import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { TermdError } from "../terminal/errors.ts";
import type { OutputStream } from "./stream.ts";
import { clientLog } from "./client-log.ts";

/** Opens `path` for the copy, creating its folder; INVALID_PARAMS when it cannot. */
export function openTee(path: string, append = false): number {
  try {
    mkdirSync(dirname(path), { recursive: true });
    return openSync(path, append ? "a" : "w", 0o600);
  } catch (err) {
    throw new TermdError("BAD_ARGUMENT", `cannot write log_path ${path}: ${(err as Error).message}`);
  }
}

/** Copies every output byte of `s` to `fd` from now on, until the session ends or a write fails; returns the way to stop. */
export function attachTee(s: Pick<OutputStream, "name" | "on">, fd: number): () => void {
  let open = true;
  const close = () => {
    if (!open) return;
    open = false;
    off();
    closeSync(fd);
  };
  const off = s.on((e) => {
    if (e.type === "output") {
      try {
        writeSync(fd, e.data);
      } catch (err) {
        clientLog.log(`termd: session ${s.name}: log_path write failed, copy stopped: ${(err as Error).message}`);
        close();
      }
    } else if (e.type === "exit") close();
  });
  return close;
}
