// Terminal output as plain text: what `termd logs` prints without --raw, and the lines ralph's
// subscribers get. The vt parser drops every escape sequence (so colours, cursor moves and titles
// vanish whole, even split across chunks); printable text, tabs and line ends remain. CR LF
// becomes LF, and a lone CR (a progress bar redrawing its line) becomes LF too, so each state of
// the line stays readable. TextPerformer is the rule itself: the session's vt tap drives it from
// its own parse of the live stream; PlainText gives it a parser of its own for stored bytes.
import { NoopPerformer, Parser, codepointsToString } from "../vt/index.ts";

const LF = 0x0a;
const CR = 0x0d;
const TAB = 0x09;

export class TextPerformer extends NoopPerformer {
  out = "";
  pendingCr = false;
  /** Nothing printed since the last line end: a CR here (the cursor already at column 0) ends nothing. */
  private lineEmpty = true;

  /** The text made so far; a trailing CR stays held back until the next byte shows what it was. */
  take(): string {
    const text = this.out;
    this.out = "";
    return text;
  }

  private flushCr(): void {
    if (this.pendingCr) this.out += "\n";
    this.pendingCr = false;
  }

  override print(codes: Uint32Array, start: number, end: number): void {
    this.flushCr();
    this.out += codepointsToString(codes, start, end);
    this.lineEmpty = false;
  }

  override execute(code: number): void {
    if (code === CR) {
      // CR CR LF is what a PTY makes of a program's own "\r\n" (ONLCR): one line end. A CR at
      // the start of a line (bash writes one after each command's line end) is no line at all.
      if (!this.lineEmpty) this.pendingCr = true;
    } else if (code === LF) {
      this.pendingCr = false;
      this.out += "\n";
      this.lineEmpty = true;
    } else if (code === TAB) {
      this.flushCr();
      this.out += "\t";
      this.lineEmpty = false;
    }
  }
}

/** Strips a byte stream chunk by chunk; state carries across chunks. */
export class PlainText {
  private readonly performer = new TextPerformer();
  private readonly parser = new Parser(this.performer);

  /** The text of `chunk`; a trailing CR is held back until the next byte shows what it was. */
  push(chunk: Uint8Array): string {
    this.parser.parse(chunk);
    return this.performer.take();
  }

  /** What is still held back at the end of the stream. */
  end(): string {
    const text = this.performer.pendingCr ? "\n" : "";
    this.performer.pendingCr = false;
    return text;
  }
}

export function plainText(bytes: Uint8Array): string {
  const p = new PlainText();
  return p.push(bytes) + p.end();
}
