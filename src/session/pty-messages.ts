// What crosses between the daemon's thread and a pty worker (pty-worker.ts). Each message names
// the program it is about by the daemon's own number for it.
import type { PtySpec } from "./pty.ts";
import type { TermiosFlags } from "./termios.ts";

export type ToPtyWorker =
  /** First message: the read end of the pipe whose bytes wake the worker's poll loop (pty-reactor.ts). */
  | { t: "init"; wakeFd: number }
  | { t: "spawn"; id: number; spec: PtySpec }
  | { t: "write"; id: number; data: string | Uint8Array }
  | { t: "resize"; id: number; rows: number; cols: number }
  | { t: "pause"; id: number }
  | { t: "resume"; id: number }
  | { t: "signal"; id: number; name: string }
  | { t: "flags"; id: number; req: number }
  /** The output the worker asked to hear about (`ack` on a data message) and all before it has been taken. */
  | { t: "ack"; id: number };

export type FromPtyWorker =
  /** `fd`: the PTY's master, which the daemon's thread writes input to directly and closes after `exit`; null where Bun.Terminal holds it. */
  | { t: "spawned"; id: number; pid: number; fd: number | null }
  | { t: "failed"; id: number; message: string }
  /** `ack`: this PTY is not read again until the daemon's thread says it has taken this and what came before. */
  | { t: "data"; id: number; data: Uint8Array; ack?: true }
  | { t: "drain"; id: number }
  | { t: "exit"; id: number; exitCode: number | null; signal: string | null }
  | { t: "flags"; id: number; req: number; flags: TermiosFlags | null };
