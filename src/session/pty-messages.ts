// What crosses between the daemon's thread and a pty worker (pty-worker.ts). Each message names
// the program it is about by the daemon's own number for it.
import type { FromWorker, ToWorker } from "../terminal/screen-messages.ts";
import type { LogFailure } from "./log-writer.ts";
import type { ProgramExit } from "./native-pty.ts";
import type { PtySpec } from "./pty.ts";
import type { TermiosFlags } from "./termios.ts";

export type ToPtyWorker =
  /**
   * First message: the read end of the pipe whose bytes wake the worker's poll loop (pty-reactor.ts;
   * null where Bun.Terminal reads), and where the worker records the descriptors it holds (fd-ledger.ts).
   */
  | { t: "init"; wakeFd: number | null; fds: SharedArrayBuffer }
  /**
   * `at`: the output offset of the program's first byte (a restart goes on where the last run
   * ended); `log`: the file the worker appends the output to (log-writer.ts; null: none, it failed
   * in an earlier run); `prelude`: output put
   * ahead of the program's (a restart's marker line).
   */
  | { t: "spawn"; id: number; spec: PtySpec; at: number; log: string | null; prelude?: Uint8Array }
  /**
   * Take over a program an earlier image of this daemon started (adopted-pty.ts): its master `fd`
   * crossed the exec; `exit`: how it ended, when that image saw it end. Answered as a spawn is.
   */
  | { t: "adopt"; id: number; pid: number; fd: number; at: number; log: string | null; exit: ProgramExit | null }
  /**
   * The daemon is about to be replaced (daemon/handover.ts): stop reading every PTY (output waits
   * in the kernel for the next image), start nothing more, and answer "held". "release" undoes it.
   */
  | { t: "hold" }
  | { t: "release" }
  | { t: "write"; id: number; data: string | Uint8Array }
  | { t: "resize"; id: number; rows: number; cols: number }
  | { t: "pause"; id: number }
  | { t: "resume"; id: number }
  | { t: "signal"; id: number; name: string }
  | { t: "flags"; id: number; req: number }
  /**
   * The output the worker asked to hear about (`ack` on a data message) and all before it has been
   * taken; `buffers`: those of `pooled` data messages, to read into again.
   */
  | { t: "ack"; id: number; buffers?: ArrayBuffer[] }
  /** A message for one of the screens this worker holds (terminal/screen-host.ts). */
  | { t: "screen"; m: ToWorker }
  /**
   * Feed this program's output to screen `screen` as it is read, whenever that screen shows the
   * output up to the read's first byte (null: stop). The daemon's thread then sends it nothing.
   */
  | { t: "feed"; id: number; screen: number | null };

export type FromPtyWorker =
  /**
   * `fd`: the PTY's master, which the daemon's thread writes input to directly and closes after
   * `exit`; null where Bun.Terminal holds it. The spawn's `prelude` is the next data message.
   */
  | { t: "spawned"; id: number; pid: number; fd: number | null }
  | { t: "failed"; id: number; message: string }
  /**
   * `ack`: this PTY is not read again until the daemon's thread says it has taken this and what
   * came before. `fed`: the screen it feeds (a "feed" message) has parsed it already; its state
   * follows. `pooled`: the buffer goes back with the next ack once taken. The log has these bytes already; `logFailed`: it took only those before `end`, and
   * no more from now on.
   */
  | {
      t: "data";
      id: number;
      data: Uint8Array;
      ack?: true;
      fed?: true;
      /** With `fed`: the screen's state after these bytes, for its RemoteScreen once the bytes are taken. */
      state?: Extract<FromWorker, { t: "state" }>;
      logFailed?: LogFailure;
      pooled?: true;
    }
  | { t: "drain"; id: number }
  /** Every PTY is unread from now on; `exits`: the programs that ended already, as Bun reaped them. */
  | { t: "held"; exits: { pid: number; exit: ProgramExit }[] }
  | { t: "exit"; id: number; exitCode: number | null; signal: string | null }
  | { t: "flags"; id: number; req: number; flags: TermiosFlags | null }
  | { t: "screen"; m: FromWorker };
