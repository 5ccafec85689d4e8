// The headless screen of one session: @xterm/headless fed with the PTY's bytes. It answers the
// terminal queries xterm implements (DA, DSR/CPR …) through onReply, and gives snapshots as text
// or ANSI with the cursor, modes, title and a hash a waiter can compare against.
import { Terminal } from "@xterm/headless";
import { SerializeAddon } from "@xterm/addon-serialize";
import type { Modes, ScreenSnapshot, Size } from "../protocol/schemas.ts";

export interface ScreenOptions {
  rows: number;
  cols: number;
  scrollback: number;
  /** Bytes the terminal sends back to the program (query replies). */
  onReply: (data: string) => void;
}

export interface Match {
  row: number;
  col: number;
  text: string;
}

export class Screen {
  private readonly term: Terminal;
  private readonly serializer = new SerializeAddon();
  private cursorHidden = false;
  /** Increments with every parsed write: a cheap "did anything change" counter. */
  seq = 0;
  title = "";

  constructor(opts: ScreenOptions) {
    this.term = new Terminal({
      rows: opts.rows,
      cols: opts.cols,
      scrollback: opts.scrollback,
      allowProposedApi: true,
      logLevel: "off",
    });
    this.term.loadAddon(this.serializer as unknown as Parameters<Terminal["loadAddon"]>[0]);
    this.term.onData(opts.onReply);
    this.term.onBinary(opts.onReply);
    this.term.onTitleChange((t) => (this.title = t));
    // xterm headless keeps cursor visibility private; track DECTCEM ourselves.
    this.term.parser.registerCsiHandler({ prefix: "?", final: "h" }, (params) => this.decset(params, false));
    this.term.parser.registerCsiHandler({ prefix: "?", final: "l" }, (params) => this.decset(params, true));
  }

  private decset(params: (number | number[])[], hidden: boolean): boolean {
    if (params.includes(25)) this.cursorHidden = hidden;
    return false; // let xterm handle it too
  }

  /**
   * Parses bytes now. xterm's public write() defers parsing to a timer (about 1 ms a call here),
   * which would put that on every key's round trip; the session already slices and schedules the
   * stream, so it parses synchronously through the core's writeSync.
   */
  writeSync(data: Uint8Array): void {
    (this.term as unknown as { _core: { writeSync(d: Uint8Array): void } })._core.writeSync(data);
    this.seq++;
  }

  resize(size: Size): void {
    this.term.resize(size.cols, size.rows);
  }

  get size(): Size {
    return { rows: this.term.rows, cols: this.term.cols };
  }

  get modes(): Modes {
    const m = this.term.modes;
    return {
      application_cursor: m.applicationCursorKeysMode,
      application_keypad: m.applicationKeypadMode,
      bracketed_paste: m.bracketedPasteMode,
      mouse: m.mouseTrackingMode,
      focus: m.sendFocusMode,
      synchronized_output: m.synchronizedOutputMode,
      alternate: this.term.buffer.active.type === "alternate",
      cursor_visible: !this.cursorHidden,
    };
  }

  /** The visible rows as text, trailing blanks trimmed. */
  lines(): string[] {
    const buf = this.term.buffer.active;
    const out: string[] = [];
    for (let r = 0; r < this.term.rows; r++) out.push(buf.getLine(buf.viewportY + r)?.translateToString(true) ?? "");
    return out;
  }

  private scrollbackLines(n: number): string[] {
    const buf = this.term.buffer.active;
    const start = Math.max(0, buf.viewportY - n);
    const out: string[] = [];
    for (let y = start; y < buf.viewportY; y++) out.push(buf.getLine(y)?.translateToString(true) ?? "");
    return out;
  }

  cursor(): { row: number; col: number; visible: boolean } {
    const buf = this.term.buffer.active;
    return { row: buf.cursorY, col: buf.cursorX, visible: !this.cursorHidden };
  }

  /** A short digest of what a person would see: rows, cursor and which buffer is shown. */
  hash(lines = this.lines()): string {
    const c = this.cursor();
    const key = `${lines.join("\n")}\0${c.row},${c.col},${c.visible}\0${this.term.buffer.active.type}`;
    return Bun.hash.wyhash(key).toString(16).padStart(16, "0");
  }

  /** First occurrence of `needle` (a string or a RegExp) on the visible screen. */
  find(needle: string | RegExp, lines = this.lines()): Match | null {
    for (let row = 0; row < lines.length; row++) {
      const line = lines[row]!;
      if (typeof needle === "string") {
        const col = line.indexOf(needle);
        if (col >= 0) return { row, col, text: needle };
      } else {
        needle.lastIndex = 0;
        const m = needle.exec(line);
        if (m) return { row, col: m.index, text: m[0] };
      }
    }
    return null;
  }

  snapshot(format: "text" | "ansi" = "text", scrollback = 0): Omit<ScreenSnapshot, "offset"> {
    const visible = this.lines();
    const above = scrollback > 0 ? this.scrollbackLines(scrollback) : [];
    const snap: Omit<ScreenSnapshot, "offset"> = {
      lines: [...above, ...visible],
      scrollback_lines: above.length,
      cursor: this.cursor(),
      size: this.size,
      title: this.title,
      alternate: this.term.buffer.active.type === "alternate",
      modes: this.modes,
      seq: this.seq,
      hash: this.hash(visible),
    };
    if (format === "ansi") snap.ansi = this.serializer.serialize({ scrollback });
    return snap;
  }

  dispose(): void {
    this.term.dispose();
  }
}
