// The attach-stream filter: removes from a session's live output the terminal queries the daemon
// answers itself, so a terminal attached to the session does not answer them a second time (the
// program would read two cursor reports, two device attributes, and take the second for input).
// One QueryFilter per subscriber, fed that subscriber's chunks in order: a query split across two
// chunks is recognised, and the bytes of an unfinished sequence are held back until it is decided.
//
// Removed (exactly what @xterm/headless or the Screen answers): DA1 (CSI c, CSI 0 c), DA2
// (CSI > c), DSR (CSI 5 n), CPR (CSI 6 n, CSI ? 6 n), DECRQM (CSI ? Ps $ p, CSI Ps $ p), XTVERSION
// (CSI > q), the kitty keyboard query (CSI ? u), OSC 10/11/12 colour queries ("10;?", "10;?;?"),
// DECRQSS (DCS $ q … ST). Everything else passes unchanged and in order; a C0 control inside a
// held sequence is passed at once (a terminal executes it there anyway).
//
// A sequence longer than any query (MAX_CSI, MAX_STRING) is let through as soon as that is clear,
// so an image or clipboard OSC is streamed, never buffered.

const ESC = 0x1b;
const BEL = 0x07;
const CAN = 0x18;
const SUB = 0x1a;
const MAX_CSI = 16;
const MAX_STRING = 32;

const enum F {
  GROUND,
  ESCAPE,
  CSI,
  /** A CSI that is no query: passed through up to its final byte. */
  CSI_PASS,
  /** After ESC ] or ESC P, while the payload may still be a query. */
  STRING,
  /** ESC inside STRING: ST if a backslash follows. */
  STRING_ESC,
  /** A string that is no query: passed through up to its end. */
  STRING_PASS,
}

const CSI_QUERY = /^(?:0?c|>0?c|[56]n|\?6n|>0?q|\??\d*\$p|\?u)$/;

/** Is the CSI with parameters, intermediates and final at bytes[start..end) one of the queries? */
function csiQuery(bytes: ArrayLike<number>, start: number, end: number): boolean {
  const final = bytes[end - 1];
  // Only c n q p u end a query: most sequences are decided by their last byte alone.
  if (final !== 0x63 && final !== 0x6e && final !== 0x71 && final !== 0x70 && final !== 0x75) return false;
  let text = "";
  for (let i = start; i < end; i++) text += String.fromCharCode(bytes[i]!);
  return CSI_QUERY.test(text);
}

/** Can payload[0..len) still grow into an OSC colour query "1[0-2](;?)+"? */
function oscPrefix(p: number[], from: number): boolean {
  const len = p.length - from;
  if (len > MAX_STRING) return false;
  for (let i = 0; i < len; i++) {
    const c = p[from + i]!;
    const ok = i === 0 ? c === 0x31 : i === 1 ? c >= 0x30 && c <= 0x32 : i % 2 === 0 ? c === 0x3b : c === 0x3f;
    if (!ok) return false;
  }
  return true;
}

/** Can it still grow into DECRQSS "$q" followed by printable text? */
function dcsPrefix(p: number[], from: number): boolean {
  const len = p.length - from;
  if (len > MAX_STRING) return false;
  for (let i = 0; i < len; i++) {
    const c = p[from + i]!;
    const ok = i === 0 ? c === 0x24 : i === 1 ? c === 0x71 : c >= 0x20 && c < 0x7f;
    if (!ok) return false;
  }
  return true;
}

/** Copies from[start..end) to to[at..]; returns the index after. A loop for the short runs
 * between sequences, where a subarray per run would cost more than the copy. */
function copy(from: Uint8Array, start: number, end: number, to: Uint8Array, at: number): number {
  if (end - start > 64) {
    to.set(from.subarray(start, end), at);
    return at + end - start;
  }
  for (let i = start; i < end; i++) to[at++] = from[i]!;
  return at;
}

export class QueryFilter {
  private state = F.GROUND;
  /** The undecided sequence, from its ESC on. */
  private held: number[] = [];
  private osc = true;
  /** Where the payload starts in `held` (after ESC ] or ESC P). */
  private static readonly BODY = 2;

  /** Bytes held back at the end of the last chunk, waiting for the sequence to be decided. */
  get pending(): number {
    return this.held.length;
  }

  /** The chunk without the queries; the result may be `chunk` itself when nothing changed. */
  filter(chunk: Uint8Array): Uint8Array {
    if (this.state === F.GROUND && chunk.indexOf(ESC) < 0) return chunk;
    const out = new Uint8Array(chunk.length + this.held.length);
    let n = 0;
    const release = () => {
      for (const b of this.held) out[n++] = b;
      this.held = [];
    };
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      switch (this.state) {
        case F.GROUND: {
          let j = chunk.indexOf(ESC, i);
          if (j < 0) j = chunk.length;
          n = copy(chunk, i, j, out, n);
          i = j;
          if (j === chunk.length) break;
          // The common case at full speed: a whole CSI inside this chunk, decided from the chunk
          // itself. One split by the chunk's end, or holding a control byte, takes the states below.
          if (chunk[j + 1] === 0x5b) {
            let k = j + 2;
            while (k < chunk.length && k - j < MAX_CSI && chunk[k]! >= 0x20 && chunk[k]! <= 0x3f) k++;
            if (k < chunk.length && chunk[k]! >= 0x40 && chunk[k]! <= 0x7e) {
              if (!csiQuery(chunk, j + 2, k + 1)) n = copy(chunk, j, k + 1, out, n);
              i = k;
              break;
            }
          }
          this.held = [ESC];
          this.state = F.ESCAPE;
          break;
        }
        case F.ESCAPE:
          if (b === 0x5b || b === 0x5d || b === 0x50) {
            this.held.push(b);
            this.state = b === 0x5b ? F.CSI : F.STRING;
            this.osc = b === 0x5d;
          } else if (b === ESC) {
            release();
            this.held = [ESC];
          } else if (b < 0x20 && b !== CAN && b !== SUB) {
            out[n++] = b;
          } else {
            release();
            out[n++] = b;
            this.state = F.GROUND;
          }
          break;
        case F.CSI:
          if (b >= 0x40 && b <= 0x7e) {
            this.held.push(b);
            if (csiQuery(this.held, 2, this.held.length)) this.held = [];
            else release();
            this.state = F.GROUND;
          } else if (b === ESC) {
            release();
            this.held = [ESC];
            this.state = F.ESCAPE;
          } else if (b === CAN || b === SUB) {
            release();
            out[n++] = b;
            this.state = F.GROUND;
          } else if (b < 0x20) {
            out[n++] = b;
          } else {
            this.held.push(b);
            if (this.held.length > MAX_CSI) {
              release();
              this.state = F.CSI_PASS;
            }
          }
          break;
        case F.CSI_PASS:
          if (b === ESC) {
            this.held = [ESC];
            this.state = F.ESCAPE;
          } else {
            out[n++] = b;
            if ((b >= 0x40 && b <= 0x7e) || b === CAN || b === SUB) this.state = F.GROUND;
          }
          break;
        case F.STRING:
          if (b === ESC) {
            this.held.push(b);
            this.state = F.STRING_ESC;
          } else if (b === BEL && this.osc) {
            this.held.push(b);
            this.decideString(1);
            if (this.held.length > 0) release();
            this.state = F.GROUND;
          } else if (b === CAN || b === SUB) {
            release();
            out[n++] = b;
            this.state = F.GROUND;
          } else {
            this.held.push(b);
            const body = QueryFilter.BODY;
            if (!(this.osc ? oscPrefix(this.held, body) : dcsPrefix(this.held, body))) {
              release();
              this.state = F.STRING_PASS;
            }
          }
          break;
        case F.STRING_ESC:
          if (b === 0x5c) {
            this.held.push(b);
            this.decideString(2);
            if (this.held.length > 0) release();
            this.state = F.GROUND;
          } else {
            // The ESC ended the string (the terminal dispatches it there) and starts a new sequence.
            this.held.pop();
            this.decideString(0);
            if (this.held.length > 0) release();
            this.held = [ESC];
            this.state = F.ESCAPE;
            i--;
          }
          break;
        case F.STRING_PASS:
          if (b === ESC) {
            this.held = [ESC];
            this.state = F.ESCAPE;
          } else {
            out[n++] = b;
            if ((b === BEL && this.osc) || b === CAN || b === SUB) this.state = F.GROUND;
          }
          break;
      }
    }
    return out.subarray(0, n);
  }

  /** A complete string is in `held` (with `terminator` bytes at its end): drop it if a query. */
  private decideString(terminator: number): void {
    const body = this.held.slice(QueryFilter.BODY, this.held.length - terminator);
    const query = this.osc
      ? body.length >= 4 && body.length % 2 === 0 && oscPrefix(body, 0)
      : body.length >= 2 && dcsPrefix(body, 0);
    if (query) this.held = [];
  }

  /** Gives back what is held (the stream ended inside a sequence) and starts over. */
  flush(): Uint8Array {
    const out = new Uint8Array(this.held);
    this.reset();
    return out;
  }

  reset(): void {
    this.state = F.GROUND;
    this.held = [];
  }
}
