// Terminal output as plain text: what `termd logs` prints without --raw, read_output's text,
// a shell command's output and the lines ralph's subscribers get. The vt parser drops every
// escape sequence (so colours, titles and cursor moves between lines vanish whole, even split
// across chunks), but the edits a terminal applies within a line are applied, as on a screen:
// backspace and CR move back and what follows overwrites, cursor moves along the line (CUB, CUF,
// CHA), erase in line (EL), delete, insert and erase characters (DCH, ICH, ECH). So a line a
// program redrew (bash's readline after a bracketed paste, a progress bar) reads as it ended up.
// A line is given out once it ends (LF); the one in progress is held until then, or until the
// stream ends. TextPerformer is the rule itself: the session's vt tap drives it from its own
// parse of the live stream; PlainText gives it a parser of its own for stored bytes.
import { NoopPerformer, Parser, codepointsToString } from "../vt/index.ts";
import type { Params } from "../vt/params.ts";

const BS = 0x08;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
/** A line held this long without a line end goes out anyway, so a stream without LFs stays bounded. */
export const MAX_LINE_CELLS = 64 * 1024;
/** Stands after a tab in the columns it spans: nothing, when the line is joined. */
const TAB_FILL = "";

export class TextPerformer extends NoopPerformer {
  out = "";
  /** The line in progress: one string per column. */
  private cells: string[] = [];
  private col = 0;

  /** The lines ended so far. */
  take(): string {
    const text = this.out;
    this.out = "";
    return text;
  }

  /** The line in progress, given out as it stands (the end of the stream). */
  flushLine(): string {
    const line = this.cells.join("");
    this.cells = [];
    this.col = 0;
    return line;
  }

  private put(ch: string): void {
    while (this.cells.length < this.col) this.cells.push(" ");
    this.cells[this.col++] = ch;
    if (this.cells.length >= MAX_LINE_CELLS) this.out += this.flushLine() + "\n";
  }

  override print(codes: Uint32Array, start: number, end: number): void {
    for (const ch of codepointsToString(codes, start, end)) this.put(ch);
  }

  override execute(code: number): void {
    if (code === LF) this.out += this.flushLine() + "\n";
    else if (code === CR) this.col = 0;
    else if (code === BS) this.col = Math.max(0, this.col - 1);
    else if (code === TAB) {
      const stop = (Math.floor(this.col / 8) + 1) * 8;
      this.put("\t");
      while (this.col < stop) this.put(TAB_FILL);
    }
  }

  override csi(params: Params, intermediates: string, final: string, marker: string): void {
    if (marker !== "" || intermediates !== "") return;
    const n = Math.max(1, params.get(0, 1));
    switch (final) {
      case "D": // CUB
        this.col = Math.max(0, this.col - n);
        break;
      case "C": // CUF
        this.col += n;
        break;
      case "G": // CHA
      case "`": // HPA
        this.col = n - 1;
        break;
      case "K": {
        const mode = params.get(0, 0);
        if (mode === 0) this.cells.length = Math.min(this.cells.length, this.col);
        else if (mode === 1) for (let i = 0; i <= this.col && i < this.cells.length; i++) this.cells[i] = " ";
        else if (mode === 2) this.cells = [];
        break;
      }
      case "P": // DCH
        this.cells.splice(this.col, n);
        break;
      case "@": // ICH
        if (this.col < this.cells.length) this.cells.splice(this.col, 0, ...Array<string>(n).fill(" "));
        break;
      case "X": // ECH
        for (let i = this.col; i < this.col + n && i < this.cells.length; i++) this.cells[i] = " ";
        break;
    }
  }
}

/** Strips a byte stream chunk by chunk; state carries across chunks. */
export class PlainText {
  private readonly performer = new TextPerformer();
  private readonly parser = new Parser(this.performer);

  /** The text of the lines `chunk` ended; the line in progress is held back until it ends. */
  push(chunk: Uint8Array): string {
    this.parser.parse(chunk);
    return this.performer.take();
  }

  /** The line still in progress at the end of the stream. */
  end(): string {
    return this.performer.flushLine();
  }
}

export function plainText(bytes: Uint8Array): string {
  const p = new PlainText();
  return p.push(bytes) + p.end();
}
