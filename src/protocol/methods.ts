// The native method table as types: what a client sends and what it gets back. The daemon's
// commands/ implement exactly these names; the client's call() is typed by this map.
import type * as v from "valibot";
import type * as S from "./schemas.ts";

type In<T extends v.GenericSchema> = v.InferInput<T>;

export interface Methods {
  "system.ping": {
    params: Record<string, never> | undefined;
    /** `started_at`: when this daemon started (a handover's next image is a new start in the same pid); absent from older daemons. */
    result: S.BuildInfo & { protocol: number; pid: number; uptime_s: number; started_at?: string };
  };
  "system.stats": {
    params: Record<string, never> | undefined;
    result: S.BuildInfo & {
      state_dir: string;
      /** The `termd daemon` flags it runs with (not --state-dir); absent from a daemon built before it said. */
      flags?: string[];
      sessions: number;
      running: number;
      uptime_s: number;
      memory_rss_bytes: number;
      bytes_in: number;
      requests: number;
      connections: number;
      commands_run: number;
      screen_workers: number;
      open_fds: number | null;
      process_table: "procfs" | "ps";
    };
  };
  "system.screens": {
    params: In<typeof S.ScreensSchema>;
    result: {
      workers: { index: number; screens: number; parked: number; restarts: number }[];
      /** The screens the pty workers hold: each running session's, fed as its output is read. */
      pty_workers: { index: number; screens: number; parked: number }[];
      restarted?: number;
    };
  };
  "system.shutdown": { params: In<typeof S.ShutdownSchema>; result: { stopping: number } };
  "system.handover": { params: In<typeof S.HandoverSchema>; result: { from: S.BuildInfo; to: S.BuildInfo; sessions: number } };
  "session.create": { params: In<typeof S.CreateSchema>; result: S.SessionInfo };
  "session.list": { params: Record<string, never> | undefined; result: { sessions: S.SessionInfo[] } };
  "session.info": { params: In<typeof S.SessionOnlySchema>; result: S.SessionInfo };
  "session.input": { params: In<typeof S.InputSchema>; result: { bytes: number; submit?: S.SubmitReport; wait?: S.WaitResult } };
  "session.screen": { params: In<typeof S.ScreenSchema>; result: S.ScreenSnapshot };
  "session.screenshot": { params: In<typeof S.ScreenshotSchema>; result: S.ScreenshotResult };
  "session.wait": { params: In<typeof S.WaitSchema>; result: S.WaitResult };
  "session.resize": { params: In<typeof S.ResizeSchema>; result: { size: S.Size } };
  "session.signal": { params: In<typeof S.SignalSchema>; result: { signal_sent: string } };
  "session.stop": { params: In<typeof S.StopSchema>; result: S.SessionInfo };
  "session.restart": { params: In<typeof S.RestartSchema>; result: S.SessionInfo };
  "session.rename": { params: In<typeof S.RenameSchema>; result: S.SessionInfo };
  "session.remove": { params: In<typeof S.RemoveSchema>; result: { removed: string } };
  "session.cast": {
    params: In<typeof S.CastSchema>;
    result: { header?: string; lines: string[]; from: number; to: number; eof: boolean };
  };
  "session.output": { params: In<typeof S.OutputSchema>; result: S.OutputResult };
  "session.debug": { params: In<typeof S.DebugSchema>; result: S.DebugResult };
  "session.subscribe": { params: In<typeof S.SubscribeSchema>; result: { subscribed: string[]; from?: number } };
  "session.unsubscribe": { params: In<typeof S.UnsubscribeSchema>; result: { subscribed: string[] } };
  "exec.run": { params: In<typeof S.ExecRunSchema>; result: S.ExecResult };
  "exec.cancel": { params: In<typeof S.ExecCancelSchema>; result: { cancelled: boolean; signal_sent: string | null } };
}

export type MethodName = keyof Methods;
export type ParamsOf<M extends MethodName> = Methods[M]["params"];
export type ResultOf<M extends MethodName> = Methods[M]["result"];
