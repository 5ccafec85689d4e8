// What crosses between the daemon's thread and a screen worker. Every message names the screen it
// is about; a worker handles its messages in the order they were posted, so a snapshot asked for
// after some output reflects that output.
import type { ScreenPart, ScreenState } from "./screen.ts";
import type { PageAsk } from "./scrollback-page.ts";

export type SnapshotFormat = "text" | "ansi" | "cells";

export type { ScreenPart };

export type ToWorker =
  | { t: "open"; id: number; rows: number; cols: number; scrollback: number; version: string }
  /**
   * Output bytes; `end` is the session's output offset just past them. `answer`: replies to the
   * queries in them go to the program (false while a screen is rebuilt from bytes already answered).
   * `clear`: first wipe the screen and scrollback (a fast-forward over a plain-text flood).
   */
  | { t: "write"; id: number; data: Uint8Array; end: number; answer: boolean; clear?: boolean }
  | { t: "resize"; id: number; rows: number; cols: number }
  | { t: "snapshot"; id: number; req: number; format: SnapshotFormat; scrollback: number; page: PageAsk }
  | { t: "close"; id: number };

export type FromWorker =
  /** After every message that may change the screen: its state, as of output offset `offset`. */
  /** `fed`: after output the worker wrote in itself (screen-host.ts writeAt), which answers no message. */
  | { t: "state"; id: number; offset: number; state: ScreenState; fed?: true }
  /** Bytes the screen answers a query with, for the program. */
  | { t: "reply"; id: number; data: string }
  | { t: "snapshot"; id: number; req: number; snapshot?: ScreenPart; error?: string };
