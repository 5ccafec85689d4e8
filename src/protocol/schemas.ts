// The params of every native method, validated with valibot before anything touches state, and
// the shapes of what the daemon returns. Names follow valibot's FooSchema / FooInput convention.
import * as v from "valibot";

const SessionRef = v.pipe(v.string(), v.minLength(1, "session must be a non-empty id or name"));
const Dim = (name: string, max: number) =>
  v.pipe(v.number(), v.integer(`${name} must be an integer`), v.minValue(1), v.maxValue(max));
const Ms = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(24 * 3600 * 1000));

export const NoParamsSchema = v.optional(v.object({}), {});

export const ShutdownSchema = v.optional(v.object({ grace_ms: v.optional(Ms) }), {});

export const CreateSchema = v.optional(
  v.object({
    command: v.optional(v.pipe(v.array(v.string()), v.minLength(1, "command must name a program"))),
    name: v.optional(
      v.pipe(
        v.string(),
        v.regex(/^[A-Za-z0-9_.@:+-]{1,64}$/, "name must be 1-64 characters of A-Z a-z 0-9 _ . @ : + -"),
      ),
    ),
    cwd: v.optional(v.string()),
    env: v.optional(v.record(v.string(), v.string())),
    rows: v.optional(Dim("rows", 1000)),
    cols: v.optional(Dim("cols", 1000)),
    scrollback: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(1_000_000))),
    term: v.optional(v.pipe(v.string(), v.minLength(1))),
  }),
  {},
);
export type CreateInput = v.InferOutput<typeof CreateSchema>;

export const SessionOnlySchema = v.object({ session: SessionRef });

export const InputSchema = v.pipe(
  v.object({
    session: SessionRef,
    text: v.optional(v.string()),
    keys: v.optional(v.array(v.string())),
    paste: v.optional(v.string()),
    base64: v.optional(v.string()),
    submit: v.optional(v.boolean()),
  }),
  v.check(
    (p) => [p.text, p.keys, p.paste, p.base64].filter((x) => x !== undefined).length === 1,
    "give exactly one of text, keys, paste, base64",
  ),
  v.check((p) => !p.submit || p.text !== undefined, "submit goes with text"),
);
export type InputInput = v.InferOutput<typeof InputSchema>;

export const ScreenSchema = v.object({
  session: SessionRef,
  format: v.optional(v.picklist(["text", "ansi"]), "text"),
  scrollback: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
});
export type ScreenInput = v.InferOutput<typeof ScreenSchema>;

export const WaitSchema = v.pipe(
  v.object({
    session: SessionRef,
    text: v.optional(v.pipe(v.string(), v.minLength(1))),
    regex: v.optional(v.pipe(v.string(), v.minLength(1))),
    gone: v.optional(v.pipe(v.string(), v.minLength(1))),
    exit: v.optional(v.boolean()),
    activity: v.optional(v.boolean()),
    settle_ms: v.optional(v.pipe(Ms, v.minValue(1))),
    changed_from: v.optional(v.string()),
    timeout_ms: v.optional(Ms, 10_000),
  }),
  v.check(
    (p) =>
      [p.text, p.regex, p.gone, p.exit || undefined, p.activity || undefined, p.settle_ms, p.changed_from].some(
        (x) => x !== undefined,
      ),
    "give at least one of text, regex, gone, exit, activity, settle_ms, changed_from",
  ),
);
export type WaitInput = v.InferOutput<typeof WaitSchema>;

export const ResizeSchema = v.object({ session: SessionRef, rows: Dim("rows", 1000), cols: Dim("cols", 1000) });

export const SignalSchema = v.object({
  session: SessionRef,
  signal: v.union([v.string(), v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(64))]),
});

export const StopSchema = v.object({ session: SessionRef, grace_ms: v.optional(Ms) });

export const RemoveSchema = v.object({ session: SessionRef, force: v.optional(v.boolean(), false) });

export const OutputSchema = v.object({
  session: SessionRef,
  from: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
  max_bytes: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(8 * 1024 * 1024))),
});

export const EVENT_TYPES = ["output", "state", "exit", "title", "*"] as const;
export type EventType = Exclude<(typeof EVENT_TYPES)[number], "*">;

export const SubscribeSchema = v.object({
  session: v.optional(SessionRef),
  events: v.optional(v.pipe(v.array(v.picklist(EVENT_TYPES)), v.minLength(1)), ["*"]),
  replay: v.optional(v.union([v.boolean(), v.pipe(v.number(), v.integer(), v.minValue(0))])),
});
export type SubscribeInput = v.InferOutput<typeof SubscribeSchema>;

export const UnsubscribeSchema = v.object({
  session: v.optional(SessionRef),
  events: v.optional(v.array(v.picklist(EVENT_TYPES)), ["*"]),
});

// ---- results ----

export type SessionState = "running" | "exited" | "stopped" | "killed" | "failed" | "lost";

export interface Size {
  rows: number;
  cols: number;
}

export interface SessionInfo {
  id: string;
  name: string;
  command: string[];
  cwd: string;
  pid: number | null;
  state: SessionState;
  exit_code: number | null;
  signal: string | null;
  error?: string;
  created_at: string;
  ended_at: string | null;
  size: Size;
  title: string;
  bytes_out: number;
}

export interface Modes {
  application_cursor: boolean;
  application_keypad: boolean;
  bracketed_paste: boolean;
  mouse: "none" | "x10" | "vt200" | "drag" | "any";
  focus: boolean;
  synchronized_output: boolean;
  alternate: boolean;
  cursor_visible: boolean;
}

export interface ScreenSnapshot {
  lines: string[];
  scrollback_lines: number;
  cursor: { row: number; col: number; visible: boolean };
  size: Size;
  title: string;
  alternate: boolean;
  modes: Modes;
  seq: number;
  hash: string;
  /** Output byte offset the screen reflects: subscribe with replay from here to continue it. */
  offset: number;
  ansi?: string;
}

export type WaitOutcome = "matched" | "exited" | "activity" | "settled" | "changed" | "timeout";

export interface WaitResult {
  outcome: WaitOutcome;
  screen: ScreenSnapshot;
  match?: { row: number; col: number; text: string };
  exit_code?: number | null;
  signal?: string | null;
}

export interface OutputResult {
  base64: string;
  from: number;
  to: number;
  eof: boolean;
}

export interface EventMessage {
  type: EventType;
  session: string;
  timestamp: string;
  data: Record<string, unknown>;
}
