// The session's vt tap: the byte-level parser (src/vt) fed every output chunk before anything
// else sees it, and the one parse of the live stream: what else needs meaning takes it from here.
// It keeps what xterm.js does not expose or what termd owns: the modes an app turned on (cursor
// keys, alternate screen, mouse, focus, bracketed paste, synchronized output, the kitty keyboard
// flags), the title (OSC 0/2 and the CSI 22/23 t stack), the current directory (OSC 7),
// shell-integration marks (OSC 133, and VS Code's 633) with exec's own done mark, bells, where the
// queries termd answers are (query-ranges.ts, for the attach stream), plain text while somebody
// wants it (ralph's lines), and the log of sequences nobody implements
// (interminai's DEBUG, docs/dialects.md). It answers no queries: the Screen does, in stream order
// with xterm's own replies. It counts the bytes it is fed, so what it reports carries stream
// offsets; `feed(data, at)` tells it where a stream it joins late starts.
//
// It runs in the pty worker that reads the program's output (pty/pty-worker.ts), once per
// read: what it found goes to the daemon's thread with the bytes, as a TapUpdate, which the
// daemon's TapFacts takes (tap-facts.ts). Its own facts are a TapFacts changed by the same events.
//
// Unhandled sequences are logged as rebuilt from what the parser reported, not as the raw bytes:
// a parameter written "01" comes back "1", and a DCS payload is cut at MAX_DCS_LOGGED bytes.
import type { Modes } from "../protocol/schemas.ts";
import { NoopPerformer, OMITTED, Parser, ParserState, type Params } from "../vt/index.ts";
import { csiImplemented, dcsImplemented, escImplemented, oscImplemented } from "./implemented.ts";
import { KittyKeyboard } from "./kitty.ts";
import { TextPerformer } from "./plain-text.ts";
import { type QueryRanges, QueryRecorder } from "./query-ranges.ts";
import {
  defaultModes,
  readable,
  TapFacts,
  toHex,
  type Mark,
  type TapEvent,
  type TapReading,
  type TapState,
  type TapUpdate,
  type UnhandledSequence,
} from "./tap-facts.ts";

/** Titles CSI 22 t can push (xterm.js keeps 10). */
const TITLE_STACK = 10;
/** DCS payload bytes kept in one unhandled-log entry. */
const MAX_DCS_LOGGED = 64;

const MOUSE: Partial<Record<number, Modes["mouse"]>> = { 9: "x10", 1000: "vt200", 1002: "drag", 1003: "any" };
const DEC_FLAG: Partial<
  Record<
    number,
    "application_cursor" | "cursor_visible" | "application_keypad" | "focus" | "bracketed_paste" | "synchronized_output" | "mouse_sgr"
  >
> = {
  1: "application_cursor",
  25: "cursor_visible",
  66: "application_keypad",
  1004: "focus",
  1006: "mouse_sgr",
  2004: "bracketed_paste",
  2026: "synchronized_output",
};

/** VS Code's 633 E escaping: `\\` for a backslash, `\xHH` for `;` and control characters. */
function unescape633(s: string): string {
  return s.replace(/\\(\\|x([0-9a-fA-F]{2}))/g, (_, _all: string, hex?: string) => (hex ? String.fromCharCode(parseInt(hex, 16)) : "\\"));
}

/** Parameters as they were written, colons for sub-parameters: "38:2:1:2:3;1". */
function paramText(p: Params): string {
  let s = "";
  for (let i = 0; i < p.fieldCount; i++) {
    if (i > 0) s += p.isSub[i] ? ":" : ";";
    const v = p.fields[i]!;
    if (v !== OMITTED) s += String(v);
  }
  return s;
}

export interface TapOptions {
  /** Size of the unhandled-sequence log (`termd daemon --debug-buffer`). */
  debugBuffer?: number;
  /** Changes, delivered after the chunk that caused them has been parsed. */
  onEvent?: (e: TapEvent) => void;
  /** Where to go on from (a program started again, on this thread or another); `end` is the next byte's offset. */
  resume?: TapState;
}

export class VtTap extends NoopPerformer implements TapReading {
  private readonly parser = new Parser(this);
  /** What it read so far, changed by the events it reports, as the daemon's copy is. */
  readonly facts: TapFacts;
  private readonly recorder: QueryRecorder;
  /** Makes plain text while anyone wants it. */
  private text: TextPerformer | null = null;
  private textWanted = 0;
  private readonly kitty = new KittyKeyboard();
  private readonly pending: TapEvent[] = [];
  /** Unhandled sequences logged in the chunk being parsed (at most the log's size), and how many more. */
  private logged: UnhandledSequence[] = [];
  private overflow = 0;
  private readonly encoder = new TextEncoder();
  private titleStack: string[] = [];
  private dcs: { head: string; payload: number[]; size: number } | null = null;
  /** Counted as the parser meets them; the facts get the count once per chunk. */
  private rung = 0;
  /** A command line VS Code's 633 E announced for the C that follows. */
  private announced: string | null = null;

  constructor(private readonly opts: TapOptions = {}) {
    super();
    this.facts = new TapFacts({ debugBuffer: opts.debugBuffer });
    this.recorder = new QueryRecorder(this.parser, this.facts.queries);
    const r = opts.resume;
    if (r) {
      this.facts.restore(r);
      this.kitty.restore(r.kitty);
      this.titleStack = [...r.titleStack];
      this.announced = r.announced;
      this.rung = r.bells;
      this.parser.offset = r.end;
      this.facts.queries.restart(r.end);
    }
  }

  /** Stream offset just past the last byte fed. */
  get end(): number {
    return this.parser.offset;
  }

  get title(): string {
    return this.facts.title;
  }

  get cwd(): string | null {
    return this.facts.cwd;
  }

  get bells(): number {
    return this.facts.bells;
  }

  get marks(): readonly Mark[] {
    return this.facts.marks;
  }

  get lastExitCode(): number | null {
    return this.facts.lastExitCode;
  }

  get running(): TapFacts["running"] {
    return this.facts.running;
  }

  get queries(): QueryRanges {
    return this.facts.queries;
  }

  /** Everything a tap needs to go on from here, as a message carries it (between two programs: no sequence is open). */
  save(): TapState {
    return this.facts.save({ kitty: this.kitty.save(), titleStack: [...this.titleStack], announced: this.announced });
  }

  /**
   * Parses the next chunk of output; `at` is its stream offset when that is not where the last
   * chunk ended (a session restored from the end of its log). The queries before a jump count as
   * unknown, and a sequence open before it is forgotten. Returns what it read, for a TapFacts
   * elsewhere (the daemon's thread).
   */
  feed(data: Uint8Array, at = this.parser.offset): TapUpdate {
    const jumped = at !== this.parser.offset;
    if (jumped) {
      this.parser.reset();
      this.parser.offset = at;
      this.queries.restart(at);
    }
    const from = at;
    const bells = this.rung;
    const journal: number[] = [];
    this.queries.journal = journal;
    if (this.text === null) this.skim(data);
    else this.parser.parse(data);
    this.queries.journal = null;
    // One bell event per chunk however many it rang: `yes $'\a'` must not flood subscribers.
    if (this.rung !== bells) this.change({ type: "bell", count: this.rung });
    if (this.text) this.pending.push({ type: "text", from, to: this.parser.offset, text: this.text.take() });
    const update: TapUpdate = { end: this.parser.offset, events: [], hold: this.queryHold };
    if (jumped) update.jumped = at;
    if (journal.length > 0) update.queries = journal;
    if (this.logged.length > 0 || this.overflow > 0) {
      update.unhandled = this.logged;
      if (this.overflow > 0) update.dropped = this.overflow;
      this.logged = [];
      this.overflow = 0;
    }
    this.facts.end = update.end;
    this.facts.queryHold = update.hold;
    if (this.pending.length === 0) return update;
    // Events wait until the parser is done with the chunk: a listener must not run inside it.
    update.events = this.pending.splice(0);
    for (const e of update.events) this.opts.onEvent?.(e);
    return update;
  }

  /** A change the tap found: its own facts take it now (the next comparison sees it), the listeners after the chunk. */
  private change(e: TapEvent): void {
    this.facts.apply(e);
    this.pending.push(e);
  }

  /** A sequence nobody implements: into its own log now, and into the chunk's update (only the newest that fit the log). */
  private logUnhandled(text: string): void {
    const bytes = this.encoder.encode(text);
    const entry = { sequence: readable(bytes), raw_hex: toHex(bytes) };
    this.facts.logUnhandled(entry);
    this.logged.push(entry);
    if (this.logged.length > this.facts.debugBuffer) {
      this.logged.shift();
      this.overflow++;
    }
  }

  /**
   * Parses only what can change what the tap keeps. Plain text changes nothing (no mode, title,
   * mark, bell or query starts without ESC or BEL, and the parser gives no meaning to C1 bytes),
   * nor does SGR, the bulk of a coloured redraw: in GROUND both are passed over with native scans
   * and counted, and the parser gets each other sequence, with the text up to the next ESC.
   */
  private skim(data: Uint8Array): void {
    const p = this.parser;
    const n = data.length;
    let bel = -1;
    let i = 0;
    while (i < n) {
      if (p.state === ParserState.GROUND) {
        // A run of plain text in two native scans (a `cat` of a big file is all one run)…
        const esc = data.indexOf(0x1b, i);
        const runEnd = esc < 0 ? n : esc;
        if (bel < i) {
          const at = data.indexOf(0x07, i);
          bel = at < 0 ? n : at;
        }
        if (bel >= runEnd) {
          p.offset += runEnd - i;
          i = runEnd;
          if (i >= n) return;
        }
        // …then one tight pass over SGR and the text between, up to a BEL or any other ESC.
        let j = i;
        for (; j < n; j++) {
          const b = data[j]!;
          if (b === 0x07) break;
          if (b !== 0x1b) continue;
          if (data[j + 1] !== 0x5b) break;
          let k = j + 2;
          while (k < n && data[k]! >= 0x30 && data[k]! <= 0x3b) k++;
          if (k >= n || data[k] !== 0x6d) break;
          j = k;
        }
        p.offset += j - i;
        i = j;
        if (i >= n) return;
      }
      // A BEL, any other sequence, or the rest of one begun in an earlier chunk: the parser takes
      // it, with what follows it up to the next ESC.
      const next = data.indexOf(0x1b, i + 1);
      const end = next < 0 ? n : next;
      p.parse(data, i, end);
      i = end;
    }
  }

  get modes(): Modes {
    return this.facts.modes;
  }

  /**
   * Where output has to stop for an attached terminal that gets the queries cut out: the start of
   * a sequence read so far that may still turn out to be a query; null when all is decided.
   */
  get queryHold(): number | null {
    return this.recorder.holdFrom();
  }

  /**
   * Text events from the next chunk on, until the returned release is called (by every taker).
   * Text is made during the tap's own parse, so it costs nothing while nobody wants it.
   */
  wantText(): () => void {
    if (this.textWanted++ === 0) this.text = new TextPerformer();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.textWanted === 0) this.text = null;
    };
  }

  unhandled(clear = false): { unhandled: UnhandledSequence[]; dropped: number } {
    return this.facts.unhandled(clear);
  }

  private setMode<K extends keyof Modes>(mode: K, value: Modes[K]): void {
    if (this.facts.mode(mode) === value) return;
    this.change({ type: "mode", mode, value });
    if (mode === "alternate") this.kittyChanged();
  }

  private kittyChanged(): void {
    this.setMode("kitty_keyboard", this.kitty.flags(this.facts.mode("alternate")));
  }

  override print(codes: Uint32Array, start: number, end: number): void {
    this.text?.print(codes, start, end);
  }

  override execute(code: number): void {
    if (code === 0x07) this.rung++;
    this.recorder.execute();
    this.text?.execute(code);
  }

  override csi(params: Params, intermediates: string, final: string, marker: string): void {
    // SGR first: by far the most frequent sequence, and nothing to track.
    if (final === "m" && marker === "" && intermediates === "") return;
    this.text?.csi(params, intermediates, final, marker);
    this.recorder.csi(params, intermediates, final, marker);
    if (!csiImplemented(marker, intermediates, final, params)) {
      this.logUnhandled(`\x1b[${marker}${paramText(params)}${intermediates}${final}`);
    }
    if (intermediates === "") {
      if (marker === "?" && (final === "h" || final === "l")) {
        for (let i = 0; i < params.length; i++) this.decMode(params.get(i, 0), final === "h");
      } else if (final === "u" && marker !== "") this.kittyCsi(marker, params);
      else if (final === "t" && marker === "") this.titleOp(params.get(0, 0), params.get(1, 0));
    } else if (intermediates === "!" && final === "p" && marker === "") this.softReset();
  }

  private decMode(m: number, on: boolean): void {
    const flag = DEC_FLAG[m];
    if (flag) this.setMode(flag, on);
    else if (m === 47 || m === 1047 || m === 1049) this.setMode("alternate", on);
    else {
      const mouse = MOUSE[m];
      // xterm.js: resetting any of the tracking modes turns tracking off.
      if (mouse) this.setMode("mouse", on ? mouse : "none");
    }
  }

  private kittyCsi(marker: string, params: Params): void {
    const alt = this.facts.mode("alternate");
    if (marker === ">") this.kitty.push(params.get(0, 0), alt);
    else if (marker === "<") this.kitty.pop(params.get(0, 1), alt);
    else if (marker === "=") this.kitty.set(params.get(0, 0), params.get(1, 1), alt);
    else return;
    this.kittyChanged();
  }

  /** CSI 22 ; Ps t pushes the title, CSI 23 ; Ps t pops it (Ps 0 or 2: the window title). */
  private titleOp(op: number, which: number): void {
    if (which !== 0 && which !== 2) return;
    if (op === 22) {
      this.titleStack.push(this.facts.title);
      if (this.titleStack.length > TITLE_STACK) this.titleStack.shift();
    } else if (op === 23) {
      const t = this.titleStack.pop();
      if (t !== undefined) this.setTitle(t);
    }
  }

  /** DECSTR, as xterm.js: the cursor shows, the DEC private modes go back to their defaults. */
  private softReset(): void {
    this.setMode("cursor_visible", true);
    for (const m of ["application_cursor", "application_keypad", "bracketed_paste", "focus", "synchronized_output"] as const) {
      this.setMode(m, false);
    }
  }

  override esc(intermediates: string, final: string): void {
    this.recorder.esc(intermediates, final);
    if (!escImplemented(intermediates, final)) this.logUnhandled(`\x1b${intermediates}${final}`);
    if (intermediates !== "") return;
    if (final === "=") this.setMode("application_keypad", true);
    else if (final === ">") this.setMode("application_keypad", false);
    else if (final === "c") {
      // RIS: every mode back to its default, both kitty stacks emptied.
      this.kitty.reset();
      this.titleStack = [];
      const d = defaultModes();
      for (const k of Object.keys(d) as (keyof Modes)[]) this.setMode(k, d[k]);
    }
  }

  override osc(data: string, bellTerminated: boolean): void {
    this.recorder.osc(data, bellTerminated);
    const semi = data.indexOf(";");
    const idText = semi >= 0 ? data.slice(0, semi) : data;
    const id = /^\d+$/.test(idText) ? Number(idText) : NaN;
    const arg = semi >= 0 ? data.slice(semi + 1) : "";
    if (!oscImplemented(id)) {
      this.logUnhandled(`\x1b]${data}${bellTerminated ? "\x07" : "\x1b\\"}`);
      return;
    }
    if (id === 0 || id === 2) this.setTitle(arg);
    else if (id === 7) this.setCwd(arg);
    else if (id === 133 || id === 633) this.shellMark(id, arg, this.parser.position + (bellTerminated ? 1 : 2));
  }

  private setTitle(title: string): void {
    if (title !== this.facts.title) this.change({ type: "title", title });
  }

  /** OSC 7 file://host/path (also kitty's kitty-shell-cwd://): the path, percent-decoded. */
  private setCwd(uri: string): void {
    const m = /^[a-z][a-z0-9+.-]*:\/\/[^/]*(\/.*)$/i.exec(uri);
    let path = m ? m[1]! : uri.startsWith("/") ? uri : null;
    if (path === null) return;
    try {
      path = decodeURIComponent(path);
    } catch {}
    if (path !== this.facts.cwd) this.change({ type: "cwd", cwd: path });
  }

  /** OSC 133 ; A|B|C|D[;status][;key=value…] (633 also sends P;Cwd=… for the directory), and
   * exec's 133 ; termd-done ; STATUS ; NONCE. `end` is the offset just past the mark. */
  private shellMark(id: number, arg: string, end: number): void {
    const parts = arg.split(";");
    const kind = parts[0];
    if (kind === "P" && parts[1]?.startsWith("Cwd=")) return this.setCwd(parts[1].slice(4));
    if (kind === "E" && id === 633) {
      this.announced = unescape633(parts[1] ?? "");
      return;
    }
    if (kind === "termd-done" && id === 133) {
      const [, status, nonce] = parts;
      if (parts.length === 3 && /^-?\d+$/.test(status!))
        this.pending.push({ type: "done_mark", status: Number(status), nonce: nonce!, end });
      return;
    }
    if (kind !== "A" && kind !== "B" && kind !== "C" && kind !== "D") return;
    const mark: Mark = { kind, time: new Date().toISOString() };
    if (kind === "D") {
      const status = parts[1];
      mark.exit_code = status !== undefined && /^-?\d+$/.test(status) ? Number(status) : null;
    } else if (kind === "C") {
      const url = parts.slice(1).find((p) => p.startsWith("cmdline_url="));
      let command = this.announced;
      if (url) {
        try {
          command = decodeURIComponent(url.slice("cmdline_url=".length));
        } catch {}
      }
      this.announced = null;
      if (command !== null) mark.command = command;
    }
    // The facts keep it (marks, running, lastExitCode).
    this.change({ type: "mark", mark, end });
  }

  override dcsHook(params: Params, intermediates: string, final: string, marker: string): void {
    this.recorder.dcsHook(params, intermediates, final, marker);
    this.dcs = dcsImplemented(marker, intermediates, final)
      ? null
      : { head: `\x1bP${marker}${paramText(params)}${intermediates}${final}`, payload: [], size: 0 };
  }

  override dcsPut(data: Uint8Array, start: number, end: number): void {
    const d = this.dcs;
    if (!d) return;
    for (let i = start; i < end && d.payload.length < MAX_DCS_LOGGED; i++) d.payload.push(data[i]!);
    d.size += end - start;
  }

  override dcsUnhook(cancelled: boolean): void {
    this.recorder.dcsUnhook(cancelled);
    const d = this.dcs;
    this.dcs = null;
    if (!d) return;
    // A payload that is not UTF-8 (sixel is ASCII, so rarely) is logged with U+FFFD in its place.
    const payload = new TextDecoder().decode(new Uint8Array(d.payload));
    this.logUnhandled(`${d.head}${payload}${d.size > MAX_DCS_LOGGED ? "…" : ""}${cancelled ? "" : "\x1b\\"}`);
  }
}
