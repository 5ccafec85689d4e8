// What the vt tap (vt-tap.ts) has read in a session's output so far: the modes, the title, the
// directory, the shell's marks, the bells, the unhandled sequences and where the answered queries
// are. The tap keeps one for itself as it parses; the daemon's thread keeps another, fed the
// tap's updates (TapUpdate, one per read, made in the pty worker that read and parsed the bytes),
// and its callers read that one synchronously: session.info, session.debug, exec's marks, the
// attach stream, waits. Both change by the same events, applied in one place (apply), so the two
// agree byte for byte. A TapState is the tap's whole state as a message carries it: a program
// restarted on another pty worker, or a restored session's program, goes on from it.
import type { Modes } from "../protocol/schemas.ts";
import type { KittyStacks } from "./kitty.ts";
import { QueryRanges } from "./query-ranges.ts";

export const DEFAULT_DEBUG_BUFFER = 10;
/** Shell-integration marks kept, newest last. */
export const MAX_MARKS = 16;

export interface UnhandledSequence {
  /** Readable: ESC as \e, BEL as \a, other controls as \xNN, backslash as \\. */
  sequence: string;
  raw_hex: string;
}

/** One OSC 133 mark: A prompt start, B command start, C output start, D command done. */
export interface Mark {
  kind: "A" | "B" | "C" | "D";
  /** D's exit status; null when the shell sent none. */
  exit_code?: number | null;
  /** C's command line, when the shell sent it (`cmdline_url=`, percent-encoded, or VS Code's 633 E before it). */
  command?: string;
  time: string;
}

export type TapEvent =
  | { type: "title"; title: string }
  | { type: "cwd"; cwd: string }
  | { type: "bell"; count: number }
  /** `end`: the stream offset just past the mark (past ESC \ when ST ended it). */
  | { type: "mark"; mark: Mark; end: number }
  /** exec.run's mark, OSC 133 ; termd-done ; STATUS ; NONCE (session/shell-run.ts): kept out of `marks`. */
  | { type: "done_mark"; status: number; nonce: string; end: number }
  | { type: "mode"; mode: keyof Modes; value: Modes[keyof Modes] }
  /** The plain text (plain-text.ts) of output [from, to), while somebody wants it (wantText). */
  | { type: "text"; from: number; to: number; text: string };

/** What the tap read in one chunk of output, for a TapFacts on another thread. */
export interface TapUpdate {
  /** The stream offset just past the chunk. */
  end: number;
  /** The changes, in stream order (the listeners get them as they are). */
  events: TapEvent[];
  /** Sequences nobody implements, logged in this chunk (oldest first), and how many more fell out of the log. */
  unhandled?: UnhandledSequence[];
  dropped?: number;
  /** Answered queries found, as flat [start, end) pairs; a pair that starts where the last range ended extends it. */
  queries?: number[];
  /** Where an attached terminal's stream has to stop for now (VtTap.queryHold). */
  hold: number | null;
  /** The chunk starts here, not where the last one ended (a restored log's tail): the queries before it are unknown. */
  jumped?: number;
}

/** The tap's whole state between two programs (no sequence is open across a program's end). */
export interface TapState {
  end: number;
  modes: Modes;
  kitty: KittyStacks;
  title: string;
  titleStack: string[];
  cwd: string | null;
  bells: number;
  marks: Mark[];
  lastExitCode: number | null;
  running: { command: string | null; since: string } | null;
  announced: string | null;
}

export function defaultModes(): Modes {
  return {
    application_cursor: false,
    application_keypad: false,
    bracketed_paste: false,
    mouse: "none",
    mouse_sgr: false,
    focus: false,
    synchronized_output: false,
    alternate: false,
    cursor_visible: true,
    kitty_keyboard: 0,
  };
}

/** Bytes written the way one would type them into printf: `\e[?25l`, `\e]0;hi\a`. */
export function readable(bytes: Uint8Array): string {
  let out = "";
  let text: number[] = [];
  const flush = () => {
    if (text.length > 0) out += new TextDecoder().decode(new Uint8Array(text));
    text = [];
  };
  for (const b of bytes) {
    if (b >= 0x20 && b < 0x7f && b !== 0x5c) {
      text.push(b);
      continue;
    }
    if (b >= 0x80) {
      text.push(b);
      continue;
    }
    flush();
    if (b === 0x1b) out += "\\e";
    else if (b === 0x07) out += "\\a";
    else if (b === 0x5c) out += "\\\\";
    else out += `\\x${b.toString(16).padStart(2, "0")}`;
  }
  flush();
  return out;
}

export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("hex");
}

/** A bounded FIFO with a count of what fell out of it. */
class UnhandledLog {
  private entries: UnhandledSequence[] = [];
  private dropped = 0;

  constructor(readonly capacity: number) {}

  add(entry: UnhandledSequence): void {
    if (this.capacity <= 0) {
      this.dropped++;
      return;
    }
    this.entries.push(entry);
    if (this.entries.length > this.capacity) {
      this.entries.shift();
      this.dropped++;
    }
  }

  /** Entries that fell out before they got here (a tap elsewhere kept only the newest of a chunk). */
  drop(n: number): void {
    this.dropped += n;
  }

  /** What is logged; with clear, also empties the log and its dropped count in the same step. */
  read(clear: boolean): { unhandled: UnhandledSequence[]; dropped: number } {
    const out = { unhandled: this.entries, dropped: this.dropped };
    if (clear) {
      this.entries = [];
      this.dropped = 0;
    } else out.unhandled = [...this.entries];
    return out;
  }
}

/** What readers of the tap's facts use: the tap itself and the daemon's copy of its facts alike. */
export interface TapReading {
  readonly title: string;
  readonly cwd: string | null;
  readonly bells: number;
  readonly marks: readonly Mark[];
  readonly lastExitCode: number | null;
  readonly running: { command: string | null; since: string } | null;
  readonly modes: Modes;
  /** Stream offset just past the last byte read. */
  readonly end: number;
  /** Where the queries termd answers are in the output, for the attach stream. */
  readonly queries: QueryRanges;
  /** Where output has to stop for an attached terminal that gets the queries cut out; null when all is decided. */
  readonly queryHold: number | null;
  unhandled(clear?: boolean): { unhandled: UnhandledSequence[]; dropped: number };
  /** Text events from now on, until the returned release is called (by every taker). */
  wantText(): () => void;
}

export interface TapFactsOptions {
  /** Size of the unhandled-sequence log (`termd daemon --debug-buffer`). */
  debugBuffer?: number;
  /** Text is wanted from now on (true) or no longer (false): the tap that parses is told. */
  onTextWanted?: (wanted: boolean) => void;
}

export class TapFacts implements TapReading {
  title = "";
  /** From OSC 7 (file://host/path, percent-decoded); null until the program says. */
  cwd: string | null = null;
  bells = 0;
  marks: Mark[] = [];
  /** Exit status of the last command a shell reported with OSC 133 D. */
  lastExitCode: number | null = null;
  /** The command a shell reported started (C) and not yet done (D): its line, or null when the shell sent none. */
  running: { command: string | null; since: string } | null = null;
  readonly queries = new QueryRanges();
  queryHold: number | null = null;
  end = 0;
  private readonly state: Modes = defaultModes();
  private readonly log: UnhandledLog;
  private textWanted = 0;

  constructor(private readonly opts: TapFactsOptions = {}) {
    this.log = new UnhandledLog(opts.debugBuffer ?? DEFAULT_DEBUG_BUFFER);
  }

  get modes(): Modes {
    return { ...this.state };
  }

  /** The current value of one mode, without a copy of them all (the tap compares before it tells). */
  mode<K extends keyof Modes>(mode: K): Modes[K] {
    return this.state[mode];
  }

  get debugBuffer(): number {
    return this.log.capacity;
  }

  unhandled(clear = false): { unhandled: UnhandledSequence[]; dropped: number } {
    return this.log.read(clear);
  }

  logUnhandled(entry: UnhandledSequence): void {
    this.log.add(entry);
  }

  get wantsText(): boolean {
    return this.textWanted > 0;
  }

  wantText(): () => void {
    if (this.textWanted++ === 0) this.opts.onTextWanted?.(true);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.textWanted === 0) this.opts.onTextWanted?.(false);
    };
  }

  /** One change, as the tap made it. */
  apply(e: TapEvent): void {
    switch (e.type) {
      case "mode":
        Object.assign(this.state, { [e.mode]: e.value });
        return;
      case "title":
        this.title = e.title;
        return;
      case "cwd":
        this.cwd = e.cwd;
        return;
      case "bell":
        this.bells = e.count;
        return;
      case "mark": {
        const { mark } = e;
        if (mark.kind === "D") {
          if (mark.exit_code !== null && mark.exit_code !== undefined) this.lastExitCode = mark.exit_code;
          this.running = null;
        } else if (mark.kind === "C") this.running = { command: mark.command ?? null, since: mark.time };
        else if (mark.kind === "A") this.running = null;
        this.marks.push(mark);
        if (this.marks.length > MAX_MARKS) this.marks.shift();
        return;
      }
    }
  }

  /** A chunk the tap read elsewhere (a pty worker): its changes, its log, its queries. */
  take(u: TapUpdate): void {
    for (const e of u.events) this.apply(e);
    if (u.dropped) this.log.drop(u.dropped);
    if (u.unhandled) for (const entry of u.unhandled) this.log.add(entry);
    if (u.jumped !== undefined) this.queries.restart(u.jumped);
    const q = u.queries;
    if (q) for (let i = 0; i < q.length; i += 2) this.queries.append(q[i]!, q[i + 1]!);
    this.queryHold = u.hold;
    this.end = u.end;
  }

  /** The facts as a TapState, for a tap that goes on from them (a program started again). */
  save(extra?: Pick<TapState, "kitty" | "titleStack" | "announced">): TapState {
    return {
      end: this.end,
      modes: this.modes,
      kitty: extra?.kitty ?? { main: [], alt: [] },
      title: this.title,
      titleStack: extra?.titleStack ?? [],
      cwd: this.cwd,
      bells: this.bells,
      marks: [...this.marks],
      lastExitCode: this.lastExitCode,
      running: this.running,
      announced: extra?.announced ?? null,
    };
  }

  /** Takes the facts of a TapState (a tap resumed from it). */
  restore(s: TapState): void {
    Object.assign(this.state, s.modes);
    this.title = s.title;
    this.cwd = s.cwd;
    this.bells = s.bells;
    this.marks = [...s.marks];
    this.lastExitCode = s.lastExitCode;
    this.running = s.running;
    this.end = s.end;
  }
}
