// What crosses between the daemon's thread and a pty worker (pty-worker.ts). Each message names
// the program it is about by the daemon's own number for it.
import type { FromWorker, ToWorker } from "../terminal/screen-messages.ts";
import type { TapState, TapUpdate } from "../terminal/tap-facts.ts";
import type { LogFailure } from "./log-writer.ts";
import type { ProgramExit } from "./polled-pty.ts";
import type { PtySpec } from "./pty.ts";
import type { TermiosFlags } from "./termios.ts";

/** One read of a program's output, as the daemon's thread takes it: the pty worker logged it and read it already. */
export interface OutputRead {
  data: Uint8Array;
  /** What the vt tap read in it. */
  tap: TapUpdate;
  /** The output offset just past its last byte that is not plain text (terminal/fast-forward.ts's lastNonPlain); -1: it is all plain. */
  nonPlain: number;
  /** The screen it feeds (a "feed" message) has parsed it already; its state follows. */
  fed?: true;
  /** The log took only the bytes before `end`, and takes no more from now on. */
  logFailed?: LogFailure;
  /** The copy to `tee` (a spawn's) failed at this read, and why: it takes no more. */
  teeFailed?: string;
}

/** How the worker takes a program's output, from its first byte. */
export interface OutputSetup {
  /** The output offset of the program's first byte. */
  at: number;
  /** The session's log, which the worker appends the output to (null: it takes no more). */
  log: string | null;
  /** Output put ahead of the program's. */
  prelude?: Uint8Array;
  /** Where the vt tap that reads the output in the worker goes on from, the size of its unhandled log, and whether its text is wanted. */
  tap: TapState;
  debugBuffer: number;
  text: boolean;
  /** A file the daemon's thread opened, to copy every read to (pty/tee.ts); it closes it after `exit`. */
  tee?: number;
}

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
   * ahead of the program's (a restart's marker line). `tap`: where the vt tap that reads the
   * output goes on from (its `end` is `at`), `debugBuffer` the size of its unhandled log, `text`
   * whether its plain text is wanted (terminal/vt-tap.ts).
   */
  | ({ t: "spawn"; id: number; spec: PtySpec } & OutputSetup)
  /** The output's plain text is wanted from now on, or no longer (the tap's text events). */
  | { t: "text"; id: number; on: boolean }
  /**
   * Take over a program an earlier image of this daemon started (adopted-pty.ts): its master `fd`
   * crossed the exec; `exit`: how it ended, when that image saw it end; `size`: the session's, set
   * on the terminal first (a resize the earlier image's held worker never applied is applied
   * here). Answered as a spawn is.
   */
  | {
      t: "adopt";
      id: number;
      pid: number;
      fd: number;
      at: number;
      log: string | null;
      exit: ProgramExit | null;
      size: PtySpec["size"];
      /** Input the earlier image had queued and not written: written before any other. */
      input: Uint8Array | null;
      tap: TapState;
      debugBuffer: number;
      text: boolean;
    }
  /**
   * The daemon is about to be replaced (daemon/handover.ts): stop reading every PTY (output waits
   * in the kernel for the next image), start nothing more, answer "held", and then stop the
   * worker's thread altogether until `gate[0]` is set (pty-pool.ts's release): a program that
   * ends meanwhile is then not reaped by this image's Bun, which would take its exit status with
   * it, and the next image reaps it. "release" undoes the rest.
   */
  | { t: "hold"; gate: Int32Array }
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
   * `exit` (pty-master.ts); null where Bun.Terminal holds it. The spawn's `prelude` is the next data message.
   */
  | { t: "spawned"; id: number; pid: number; fd: number | null }
  | { t: "failed"; id: number; message: string }
  /**
   * `ack`: this PTY is not read again until the daemon's thread says it has taken this and what
   * came before. `pooled`: the buffer goes back with the next ack once taken.
   */
  | ({
      t: "data";
      id: number;
      ack?: true;
      /** With `fed`: the screen's state after these bytes, for its RemoteScreen once the bytes are taken. */
      state?: Extract<FromWorker, { t: "state" }>;
      pooled?: true;
    } & OutputRead)
  /**
   * The terminal took everything queued: `taken` is every byte of input the worker has been sent
   * for this program so far, so the daemon's thread knows which of its writes are still on their
   * way (sent after the queue emptied) and writes straight to the master only when none is.
   */
  | { t: "drain"; id: number; taken: number }
  /** A resize was applied (or its PTY is gone): a write sent after it no longer has to follow it through the worker. */
  | { t: "resized"; id: number }
  /**
   * Every PTY is unread from now on; `exits`: the programs that ended already, as Bun reaped them;
   * `input`: what each program was sent that its terminal had no room for yet (the worker's queue,
   * which the exec would drop: the next image writes it first).
   */
  | { t: "held"; exits: { pid: number; exit: ProgramExit }[]; input: { pid: number; data: Uint8Array }[] }
  /** `tap`: the vt tap's state after the last byte, for the program's next run (wherever it runs). */
  | { t: "exit"; id: number; exitCode: number | null; signal: string | null; tap: TapState }
  | { t: "flags"; id: number; req: number; flags: TermiosFlags | null }
  | { t: "screen"; m: FromWorker };
