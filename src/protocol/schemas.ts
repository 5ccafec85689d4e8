// The params of every native method, validated with valibot before anything touches state, and
// the shapes of what the daemon returns. Names follow valibot's FooSchema / FooInput convention.
import * as v from "valibot";
import { WAIT_TIMEOUT_MS } from "./wait-limits.ts";

const SessionRef = v.pipe(v.string(), v.minLength(1, "session must be a non-empty id or name"));
const Dim = (name: string, max: number) => v.pipe(v.number(), v.integer(`${name} must be an integer`), v.minValue(1), v.maxValue(max));
const Ms = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(24 * 3600 * 1000));

/**
 * A session's name: it goes on command lines (`termd rm NAME`) and into paths and URLs, so no
 * spaces, slashes or control characters, nothing a command line reads as a flag, and not `.` or `..`.
 */
export const SessionName = v.pipe(
  v.string(),
  v.regex(/^[A-Za-z0-9_.@:+-]{1,64}$/, "name must be 1-64 characters of A-Z a-z 0-9 _ . @ : + -"),
  v.check((name) => !name.startsWith("-"), "name must not start with '-' (a command line would read it as a flag)"),
  v.check((name) => name !== "." && name !== "..", "name must not be '.' or '..'"),
);

export const NoParamsSchema = v.optional(v.object({}), {});

export const ScreensSchema = v.optional(
  v.object({
    /** Replace this worker as if it had crashed: its sessions' screens are rebuilt from their logs. */
    restart: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
  }),
  {},
);

export const ShutdownSchema = v.optional(v.object({ grace_ms: v.optional(Ms) }), {});

/** system.handover: the command that runs the next build (a binary, or a runtime and its script); default the daemon's own. */
export const HandoverSchema = v.optional(
  v.object({ command: v.optional(v.pipe(v.array(v.string()), v.minLength(1, "command must name a binary"))) }),
  {},
);

/** Cells (cols × (rows + scrollback)) one session's screen may hold: 12 bytes each in xterm, so about 120 MB at most. */
export const MAX_SCREEN_CELLS = 10_000_000;

export const CreateSchema = v.optional(
  v.pipe(
    v.object({
      command: v.optional(v.pipe(v.array(v.string()), v.minLength(1, "command must name a program"))),
      name: v.optional(SessionName),
      cwd: v.optional(v.string()),
      env: v.optional(v.record(v.string(), v.string())),
      rows: v.optional(Dim("rows", 1000)),
      cols: v.optional(Dim("cols", 1000)),
      scrollback: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(1_000_000))),
      term: v.optional(v.pipe(v.string(), v.minLength(1))),
      /** Path of an asciicast v2 recording of output, input and resizes. */
      record: v.optional(v.pipe(v.string(), v.minLength(1))),
      /** A socket of the session's own, where requests need not name it (interminai, ralph). */
      socket: v.optional(v.pipe(v.string(), v.minLength(1))),
      /** The dialect spoken there when a connection's first line picks none (e.g. is not JSON). */
      socket_dialect: v.optional(v.pipe(v.string(), v.minLength(1))),
      /**
       * What happens to the socket file when the session's socket closes: `unlink` (default),
       * `keep` (left in place, refusing connections), `rmdir` (unlinked with its folder, one made for it).
       */
      socket_cleanup: v.optional(v.picklist(["unlink", "keep", "rmdir"])),
      /** A file that also receives every output byte (truncated first), as `script -f` writes one. */
      log_path: v.optional(v.pipe(v.string(), v.minLength(1))),
      /** Append to log_path instead of truncating it (interminai's --pty-dump). */
      log_append: v.optional(v.boolean()),
      /** exec.run's timeout in this session when a call names none; 0 or absent: none (TRL's timeout_s). */
      exec_timeout_ms: v.optional(Ms),
      /**
       * bash, zsh and fish get hooks that report prompts, commands and their status (OSC 133) and the
       * directory (OSC 7) unless this is false; the user's rc files still load.
       */
      shell_integration: v.optional(v.boolean()),
      /** A client's own fields kept with the session and shown in SessionInfo (a dialect's namespace and labels). */
      meta: v.optional(v.record(v.string(), v.unknown())),
    }),
    v.check(
      (p) => (p.cols ?? 80) * ((p.rows ?? 24) + (p.scrollback ?? 1000)) <= MAX_SCREEN_CELLS,
      "cols × (rows + scrollback) is over 10 million cells (MAX_SCREEN_CELLS): ask for less scrollback",
    ),
  ),
  {},
);

export type CreateInput = v.InferOutput<typeof CreateSchema>;

export const SessionOnlySchema = v.object({ session: SessionRef });

/** The conditions session.wait and session.input's `wait` share. */
const WaitConditions = {
  text: v.optional(v.pipe(v.string(), v.minLength(1))),
  regex: v.optional(v.pipe(v.string(), v.minLength(1))),
  gone: v.optional(v.pipe(v.string(), v.minLength(1))),
  exit: v.optional(v.boolean()),
  activity: v.optional(v.boolean()),
  settle_ms: v.optional(v.pipe(Ms, v.minValue(1))),
  /** A command typed at a shell's prompt is done (shell integration's OSC 133 D). */
  command_done: v.optional(v.boolean()),
  /** A shell with shell integration drew its prompt (OSC 133 A/B) after the last input, and the screen shows it. */
  prompt: v.optional(v.boolean()),
  timeout_ms: v.optional(Ms, WAIT_TIMEOUT_MS),
};

/** What a wait waits for: every shared key but its bound. */
const CONDITION_KEYS = Object.keys(WaitConditions).filter((k) => k !== "timeout_ms") as Exclude<
  keyof typeof WaitConditions,
  "timeout_ms"
>[];

/** A wait needs at least one of `keys` (a false flag counts as absent). */
function someCondition<T extends object>(keys: readonly (keyof T & string)[]) {
  return v.check<T, string>(
    (p) => keys.some((k) => p[k] !== undefined && (p[k] as unknown) !== false),
    `give at least one of ${keys.join(", ")}`,
  );
}

/**
 * session.input's `wait`: session.wait's conditions, registered before the input is written and
 * answered after it, from the screen as it was before it (see session/baseline.ts's Baseline).
 */
const InputWaitObject = v.object({
  ...WaitConditions,
  /** Any change from the screen before the input. */
  changed: v.optional(v.boolean()),
});
export const InputWaitSchema = v.pipe(
  InputWaitObject,
  someCondition<v.InferOutput<typeof InputWaitObject>>([...CONDITION_KEYS, "changed"]),
);

/** A screen position, 0-based like session.screen's cursor. */
const Point = v.object({
  row: v.pipe(v.number(), v.integer(), v.minValue(0)),
  col: v.pipe(v.number(), v.integer(), v.minValue(0)),
});
const MouseButton = v.optional(v.picklist(["left", "middle", "right"]));
const MouseModifiers = {
  shift: v.optional(v.boolean()),
  alt: v.optional(v.boolean()),
  ctrl: v.optional(v.boolean()),
};
/** Repeats of a click or wheel notches: bounded, so one request cannot become megabytes of reports. */
const Repeat = v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100)));

/** One mouse event, encoded for the mouse mode the program turned on (terminal/mouse.ts). */
export const MouseEventSchema = v.variant("action", [
  v.object({ action: v.literal("click"), ...Point.entries, button: MouseButton, count: Repeat, ...MouseModifiers }),
  v.object({ action: v.picklist(["press", "release"]), ...Point.entries, button: MouseButton, ...MouseModifiers }),
  v.object({ action: v.literal("move"), ...Point.entries, ...MouseModifiers }),
  v.object({ action: v.literal("drag"), from: Point, to: Point, button: MouseButton, ...MouseModifiers }),
  v.object({
    action: v.literal("scroll"),
    ...Point.entries,
    direction: v.picklist(["up", "down", "left", "right"]),
    count: Repeat,
    ...MouseModifiers,
  }),
]);

export type MouseEventInput = v.InferInput<typeof MouseEventSchema>;

export const InputSchema = v.pipe(
  v.object({
    session: SessionRef,
    text: v.optional(v.string()),
    keys: v.optional(v.array(v.string())),
    paste: v.optional(v.string()),
    base64: v.optional(v.string()),
    mouse: v.optional(MouseEventSchema),
    submit: v.optional(v.boolean()),
    /** A secret (a password): kept out of the session's recording (`record`'s input events). */
    secret: v.optional(v.boolean()),
    /** How long to wait for a program that is behind on reading its input (INPUT_NOT_READ after). */
    timeout_ms: v.optional(Ms, 10_000),
    wait: v.optional(InputWaitSchema),
  }),
  v.check(
    (p) => [p.text, p.keys, p.paste, p.base64, p.mouse].filter((x) => x !== undefined).length === 1,
    "give exactly one of text, keys, paste, base64, mouse",
  ),
  v.check((p) => !p.submit || p.text !== undefined, "submit goes with text"),
);
export type InputInput = v.InferOutput<typeof InputSchema>;

export const ScreenSchema = v.object({
  session: SessionRef,
  format: v.optional(v.picklist(["text", "ansi", "cells"]), "text"),
  /** Lines of scrollback above the screen, at most: the newest of them that fit MAX_PAGE_BODY with the screen (`scrollback_lines` says how many). */
  scrollback: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
  /** Where the page of scrollback ends, in lines above the screen: the newest this many are left out (tmux's capture-pane -E -N-1). */
  scrollback_end: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
  /** Only the rows changed since this `seq` (an earlier snapshot's), in `changed`; `lines` is then empty. */
  since_seq: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
});
export type ScreenInput = v.InferOutput<typeof ScreenSchema>;

/** Pixels a PNG screenshot may have (width × height × scale²): 4 bytes each while resvg draws it, so 128 MB. */
export const MAX_PNG_PIXELS = 32 * 1024 * 1024;

export const ScreenshotSchema = v.object({
  session: SessionRef,
  format: v.optional(v.picklist(["svg", "png"]), "svg"),
  /** PNG only: pixels per SVG pixel (the SVG is 9 × 18 px per cell). */
  scale: v.optional(v.pipe(v.number(), v.minValue(0.25), v.maxValue(4)), 1),
});
export type ScreenshotInput = v.InferOutput<typeof ScreenshotSchema>;

export interface ScreenshotResult {
  format: "svg" | "png";
  /** The picture's size in pixels. */
  width: number;
  height: number;
  /** format "svg": the SVG document. */
  svg?: string;
  /** format "png": the PNG file, base64. */
  base64?: string;
}

const WaitObject = v.object({
  session: SessionRef,
  ...WaitConditions,
  changed_from: v.optional(v.string()),
  /** With command_done: an output offset (bytes_out) the command finishes after; default: where the output was when input was last written. */
  since: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
  /**
   * text and regex count only where they did not already match on the screen as it was at the
   * call ("call") or just before the session's last input ("input"; at the call when it had none).
   */
  fresh: v.optional(v.picklist(["call", "input"])),
});
export const WaitSchema = v.pipe(WaitObject, someCondition<v.InferOutput<typeof WaitObject>>([...CONDITION_KEYS, "changed_from"]));
export type WaitInput = v.InferOutput<typeof WaitSchema>;

export const ResizeSchema = v.object({ session: SessionRef, rows: Dim("rows", 1000), cols: Dim("cols", 1000) });

export const SignalSchema = v.object({
  session: SessionRef,
  signal: v.union([v.string(), v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(64))]),
  /** program (default): the session's program; foreground: the terminal's foreground process group; session: every process of the terminal's session. */
  target: v.optional(v.picklist(["program", "foreground", "session"]), "program"),
});

export const StopSchema = v.object({ session: SessionRef, grace_ms: v.optional(Ms) });

export const RestartSchema = v.object({ session: SessionRef, grace_ms: v.optional(Ms) });

export const RenameSchema = v.object({ session: SessionRef, name: SessionName });

export const RemoveSchema = v.object({ session: SessionRef, force: v.optional(v.boolean(), false) });

export const OutputSchema = v.object({
  session: SessionRef,
  from: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
  max_bytes: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(8 * 1024 * 1024))),
});

export const CastSchema = v.object({
  session: SessionRef,
  from: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0)), 0),
  max_bytes: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(8 * 1024 * 1024)), 1024 * 1024),
});

export const EVENT_TYPES = ["output", "state", "exit", "title", "bell", "mode", "hold", "*"] as const;
export type EventType = Exclude<(typeof EVENT_TYPES)[number], "*">;

export const SubscribeSchema = v.object({
  session: v.optional(SessionRef),
  events: v.optional(v.pipe(v.array(v.picklist(EVENT_TYPES)), v.minLength(1)), ["*"]),
  replay: v.optional(v.union([v.boolean(), v.pipe(v.number(), v.integer(), v.minValue(0))])),
  /** Attach options (termd attach): the terminal's size, read-only, and query stripping. */
  size: v.optional(v.object({ rows: Dim("rows", 1000), cols: Dim("cols", 1000) })),
  read_only: v.optional(v.boolean()),
  strip_queries: v.optional(v.boolean()),
  /**
   * true: this connection takes the session over (others' input, in-shell exec.run and resizes are
   * refused until it gives it back); false: gives it back and stays attached.
   */
  take_over: v.optional(v.boolean()),
  /** Who takes it over, as session.info's held_by shows it (default "a connection"). */
  holder: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(100))),
});
export type SubscribeInput = v.InferOutput<typeof SubscribeSchema>;

const EnvName = v.pipe(v.string(), v.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "env names must be shell variable names"));

export const ExecRunSchema = v.object({
  session: SessionRef,
  command: v.pipe(v.string(), v.minLength(1, "command must not be empty")),
  /** Absent: the session's exec_timeout_ms (none if it has none); 0: no limit. */
  timeout_ms: v.optional(Ms),
  /** Fed to the command's standard input (default: /dev/null, so nothing waits on the terminal). */
  stdin: v.optional(v.string()),
  /** Variables set for this command only; the shell's own are restored afterwards. */
  env: v.optional(v.record(EnvName, v.string())),
  /**
   * A new `SHELL -c COMMAND` (SHELL: the session's program) in the session's starting cwd and
   * environment, over pipes, instead of inside the live shell: nothing persists between runs.
   */
  fresh: v.optional(v.boolean()),
});
export type ExecRunInput = v.InferOutput<typeof ExecRunSchema>;

export const ExecCancelSchema = v.object({
  session: SessionRef,
  signal: v.optional(v.union([v.string(), v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(64))])),
});

export const DebugSchema = v.object({ session: SessionRef, clear: v.optional(v.boolean(), false) });

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

/** Which build this is (a wire shape: system.ping reports it): what `termd --version` prints and the daemon reports. */
export interface BuildInfo {
  version: string;
  /** The git commit it was built from ("+dirty" when the tree had changes); "dev" run from source. */
  commit: string;
  /** The target it was compiled for (linux-x64-musl); "source" run from source. */
  target: string;
  /** The Bun inside (or running it); null under Node. */
  bun: string | null;
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
  /** The directory the program last reported with OSC 7; null until it does (`cwd` is where it started). */
  current_cwd: string | null;
  modes: Modes;
  /** BEL characters the program wrote. */
  bells: number;
  /** The exit status of the last command a shell reported with OSC 133 D. */
  last_exit_code: number | null;
  /** The shell termd added its hooks to (bash, zsh, fish); null for other programs or with shell_integration: false. */
  shell_integration: "bash" | "zsh" | "fish" | null;
  /** The command the shell reported running now (OSC 133 C, not yet D): its line (null when the shell sent none) and start. */
  running_command: { command: string | null; started_at: string } | null;
  bytes_out: number;
  /** Why the output log stopped being written (a full disk), when it did; the bytes in memory stay readable. */
  log_error?: string;
  /** TERM as the program got it. */
  term: string;
  /** Scrollback capacity in lines. */
  scrollback: number;
  /** The session's own socket, when it has one. */
  socket?: string;
  /** An exec.run is running a command in this shell. */
  busy: boolean;
  /** Who has taken the session over (session.subscribe's take_over and holder); null while nobody has. */
  held_by: string | null;
  /** Since when they hold it (ISO); null while nobody does. */
  held_since: string | null;
  /** exec.run calls that ran a command here. */
  commands_run: number;
  /** When the last one started or ended (ISO); null before the first. */
  last_command_at: string | null;
  /** session.create's `meta`, as given. */
  meta?: Record<string, unknown>;
}

/** The modes the app turned on, as the session's vt tap saw them in the output. */
export interface Modes {
  application_cursor: boolean;
  application_keypad: boolean;
  bracketed_paste: boolean;
  mouse: "none" | "x10" | "vt200" | "drag" | "any";
  /** Mouse reports in SGR form (1006). */
  mouse_sgr: boolean;
  focus: boolean;
  synchronized_output: boolean;
  alternate: boolean;
  cursor_visible: boolean;
  /** The kitty keyboard protocol's flags in force (CSI > n u); 0 when the app pushed none. */
  kitty_keyboard: number;
}

export interface ScreenSnapshot {
  lines: string[];
  /** Lines of scrollback given, at the start of `lines`: the newest of those asked that fit MAX_PAGE_BODY with the screen. */
  scrollback_lines: number;
  /** Lines held above the screen (what scrollback: N can reach at most). */
  scrollback_total: number;
  /** Where the scrollback given ends, in lines above the screen (the `scrollback_end` asked, at most `scrollback_total`): the next page back ends at this plus `scrollback_lines`. */
  scrollback_end: number;
  cursor: { row: number; col: number; visible: boolean };
  size: Size;
  title: string;
  current_cwd: string | null;
  alternate: boolean;
  modes: Modes;
  seq: number;
  hash: string;
  /** Output byte offset the screen reflects: subscribe with replay from here to continue it. */
  offset: number;
  ansi?: string;
  /** With since_seq: the rows changed since then, with their indexes (`lines` is empty). */
  changed?: { row: number; text: string }[];
  /** With since_seq: a seq this screen never reached (an earlier daemon's) was given, so every row is in `changed`. */
  full?: boolean;
  /** With format "cells": each of `lines` as styled runs. */
  cells?: CellRun[][];
}

/** A palette index (0-255) or "#rrggbb"; absent means the default colour. */
export type CellColor = number | string;

export interface CellStyle {
  fg?: CellColor;
  bg?: CellColor;
  bold?: true;
  dim?: true;
  italic?: true;
  underline?: true;
  blink?: true;
  inverse?: true;
  hidden?: true;
  strike?: true;
}

/**
 * Cells of one style from column `col`, `w` cells wide: one UTF-16 unit per cell, or with
 * `cluster` a single cell (a wide or combined character). Trailing blank default cells are left out.
 */
export interface CellRun extends CellStyle {
  col: number;
  w: number;
  text: string;
  cluster?: true;
}

export type WaitOutcome = "matched" | "exited" | "activity" | "settled" | "changed" | "command_done" | "prompt" | "timeout";

/** A command a shell reported done (session.wait's command_done). */
export interface CommandDone {
  /** Its line, when the shell sent it. */
  command: string | null;
  exit_code: number | null;
  /** What it printed between its marks, as plain text (the last 1 MiB of it). */
  output: string;
  truncated: boolean;
  started_at: string;
  ended_at: string;
  duration_ms: number;
}

export interface WaitResult {
  outcome: WaitOutcome;
  screen: ScreenSnapshot;
  match?: { row: number; col: number; text: string };
  /** With outcome command_done. */
  command?: CommandDone;
  exit_code?: number | null;
  signal?: string | null;
}

/** How a safe submit (session.input with submit) went. */
export interface SubmitReport {
  /** The text (or a collapsed paste's placeholder) was on the settled screen before Enter; false: Enter went after 3 s anyway. */
  shown: boolean;
  /** The text went as a bracketed paste (it has several lines or other control characters, and the program turned on mode 2004); false: typed. */
  bracketed: boolean;
  /** 2 when the first Enter changed nothing on the screen within 1 s and was pressed once more. */
  enter_presses: number;
  /** An Enter changed the screen (or the program ended) within 1 s; false: neither press did, so the program may not have taken the line. */
  changed: boolean;
}

export interface OutputResult {
  base64: string;
  from: number;
  to: number;
  eof: boolean;
  /** [from, to) exists nowhere: the log stopped at a failed write and the ring has moved on. */
  gap?: boolean;
}

export interface Termios {
  /** "cooked" while ICANON is on (line editing), else "raw". */
  mode: "cooked" | "raw";
  /** The flags that are on, by their termios names (ECHO, ICANON, ISIG, ICRNL, OPOST, ONLCR …). */
  flags: string[];
  hex: { iflag: string; oflag: string; lflag: string; cflag: string };
  /** Control characters in ^X form (VINTR: "^C"); empty when they could not be read. */
  c_cc: Record<string, string>;
}

export interface DebugResult {
  /** Sequences neither termd nor xterm.js implements, oldest first. */
  unhandled: { sequence: string; raw_hex: string }[];
  /** Sequences that fell out of the full log. */
  dropped: number;
  /** null once the session's terminal is closed. */
  termios: Termios | null;
  modes: Modes;
  /** The last shell-integration marks (OSC 133), oldest first. */
  marks: { kind: "A" | "B" | "C" | "D"; exit_code?: number | null; time: string }[];
}

export interface ExecResult {
  /** What the command wrote to its standard output. */
  output: string;
  /** What it wrote to its standard error, kept apart. */
  stderr: string;
  /** $? after the command; the shell's own code if the command ended the shell; null if it never finished (or, fresh, was killed by a signal). */
  exit_code: number | null;
  /** fresh: the signal that killed the command. */
  signal?: string;
  duration_ms: number;
  /** The timeout hit and the command was interrupted. */
  timed_out: boolean;
  /** exec.cancel interrupted it. */
  cancelled: boolean;
  /** output or stderr was cut at its size limit. */
  truncated: boolean;
}

export interface EventMessage {
  type: EventType;
  /** The session's name when the event was sent (a rename changes it). */
  session: string;
  /** Its id, which never changes. */
  session_id?: string;
  timestamp: string;
  data: Record<string, unknown>;
}
