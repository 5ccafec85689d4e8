// What exec, waits, submit, shell commands and the daemon's subscribers read of a session: its
// output stream (pipeline.ts, the session's `stream`: the bytes, the vt tap's reading of them, the
// screen, the events), its program as far as they drive it (running or not, input), and what
// attaching to it sets (the take-over, the terminals' sizes). Not the session: no lifecycle, store
// or info.
import type { Modes, ScreenSnapshot, SessionState, Size } from "../protocol/schemas.ts";
import type { SnapshotFormat } from "../terminal/screen-messages.ts";
import type { PageAsk } from "../terminal/scrollback-page.ts";
import type { TapEvent, TapReading } from "../terminal/tap-facts.ts";
import type { Hold, HoldInfo } from "./hold.ts";
import type { ScreenView } from "./screen-view.ts";
import type { ShellKind } from "./shell-integration.ts";

export type SessionEvent =
  | { type: "output"; from: number; to: number; data: Uint8Array }
  /** `secret`: a password typed for a person (MCP's type_secret); recordings leave it out. */
  | { type: "input"; data: string | Uint8Array; secret?: boolean }
  | { type: "resize"; size: Size }
  | { type: "screen"; seq: number }
  | TapEvent
  | { type: "state"; state: SessionState }
  /** Someone took the session over (info) or gave it back (null). */
  | { type: "hold"; hold: HoldInfo | null }
  /** `restarting`: a restart stopped the program and runs it again in this session next (attached terminals stay). */
  | { type: "exit"; exit_code: number | null; signal: string | null; restarting?: boolean };

/** The output as its readers see it (output-log.ts is one): offsets and holes, never the writing side. */
export interface OutputBytes {
  /** The offset of the oldest byte still kept (the ring's, or the log's first). */
  readonly start: number;
  /** The offset after the last byte the program wrote. */
  readonly end: number;
  /** Where the bytes that exist nowhere from `from` on end (a log that stopped at a failed write); null: `from` is kept. */
  gapEnd(from: number): number | null;
}

/** The stream: every byte, what the tap read in it, the screen, and the events about them. */
export interface OutputStream {
  readonly output: OutputBytes;
  readonly tap: TapReading;
  readonly view: ScreenView;
  readonly modes: Modes;
  readonly size: Size;
  /** Has the screen caught up with every byte the program wrote? */
  readonly screenCurrent: boolean;
  /** performance.now() of the last output byte, input or screen change; wait's "settled" clock. */
  readonly lastActivity: number;
  /** The output offset when input was last written: a command typed then finishes after it. */
  readonly inputOffset: number;
  readOutput(from: number, max: number): Uint8Array;
  textSnapshot(): ScreenSnapshot;
  /** The screen in any format, showing the output so far. */
  snapshot(format?: SnapshotFormat, scrollback?: number, page?: Omit<PageAsk, "budget">): Promise<ScreenSnapshot>;
  on(fn: (e: SessionEvent) => void): () => void;
}

/** The program and the stream it writes, as exec, waits and submit drive it. */
export interface ProgramStream {
  readonly name: string;
  readonly stream: OutputStream;
  readonly command: readonly string[];
  readonly cwd: string;
  readonly state: SessionState;
  readonly running: boolean;
  readonly pid: number | null;
  readonly exitCode: number | null;
  readonly signal: string | null;
  /** The shell whose hooks termd added; null for any other program. */
  readonly shellIntegration: ShellKind | null;
  /** The folder of those hooks (shell-run.ts leaves its requests there); null without them. */
  readonly hooksDir: string | null;
  writeInput(data: string | Uint8Array): number;
  input(data: string | Uint8Array, timeoutMs: number, signal?: AbortSignal, secret?: boolean): Promise<number>;
}

/**
 * A session as attaching to it sees it (the daemon's subscriptions, the HTTP page's live cast):
 * its stream, how its program ended, who took it over, and the sizes of the terminals attached.
 */
export interface AttachedStream {
  readonly id: string;
  readonly name: string;
  readonly stream: OutputStream;
  readonly command: readonly string[];
  readonly term: string;
  readonly running: boolean;
  readonly exitCode: number | null;
  readonly signal: string | null;
  /** Taken over by one subscriber, given back by it (a check is dispatch's business). */
  readonly hold: Pick<Hold, "take" | "give">;
  /** An attached terminal's size (null: it left). */
  setClientSize(client: object, size: Size | null): void;
}
