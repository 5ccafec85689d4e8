// A byte-level DEC/ANSI escape sequence parser: Paul Flo Williams' state machine
// (https://vt100.net/emu/dec_ansi_parser) driven by the transition table in table.ts, reporting
// to a Performer. Like alacritty/vte it assigns no meaning to what it sees: CSI ? 1049 h is just
// params "1049", marker "?", final "h". Chunk boundaries are invisible: a sequence or a UTF-8
// character split between two parse() calls comes out exactly as if it had arrived whole.
//
// Departures from vt100.net, each for the same reason as xterm.js or vte:
// - No 8-bit controls. Bytes 0x80-0xFF are UTF-8 text in GROUND (ill-formed input gives U+FFFD),
//   payload in OSC_STRING and DCS_PASSTHROUGH, and ignored like DEL in every other state. The
//   diagram's C1 rows (0x80-0x9F anywhere) and "A0-FF as 20-7F" do not apply: programs today
//   send UTF-8, in which those bytes are parts of characters. ST is therefore only ESC \.
// - DEL (0x7F) in GROUND is ignored, not printed.
// - ':' (0x3A) in CSI and DCS parameters separates sub-parameters (CSI 38:2:r:g:b m, ITU T.416)
//   instead of sending the sequence to CSI_IGNORE / DCS_IGNORE. See params.ts.
// - BEL ends an OSC string as ST does (xterm); Performer.osc is told which one it was.
// - CAN or SUB inside an OSC string cancels it: osc_end dispatches nothing. A DCS cancelled that
//   way is still unhooked, with cancelled = true.
// - The private marker (0x3C-0x3F, only collected in CSI_ENTRY/DCS_ENTRY) is reported apart from
//   the intermediates.
// - Buffers are bounded (constants.ts): too many parameter fields or intermediates send the
//   sequence to CSI_IGNORE / DCS_IGNORE (an ESC sequence is then not dispatched), an OSC string
//   over MAX_OSC_BYTES is dropped whole, a DCS over MAX_DCS_BYTES is unhooked as cancelled.
//   Parameter values saturate at MAX_PARAM_VALUE. Nothing throws.
// - print, put and osc_put handle runs, not single bytes: GROUND scans printable bytes in a tight
//   loop and makes one print call per run (the hot path), dcsPut gets whole slices of the input.
// - It counts the bytes of the stream (`offset`), so a performer can ask inside a call where the
//   sequence began (`sequenceStart`) and which byte ended it (`position`): a performer that cuts
//   sequences out of the stream, or tells where a mark ends, needs no second scan of its own.
import { ParserAction as A, MAX_DCS_BYTES, MAX_INTERMEDIATES, MAX_OSC_BYTES, PRINT_BUFFER_SIZE, ParserState as S } from "./constants.ts";
import { Params } from "./params.ts";
import type { Performer } from "./performer.ts";
import { ENTRY_ACTION, EXIT_ACTION, TRANSITION, transitionTable } from "./table.ts";
import { Utf8Decoder, decodeUtf8 } from "./utf8.ts";

const CAN = 0x18;
const SUB = 0x1a;
const BEL = 0x07;

export class Parser {
  private current: S = S.GROUND;
  private readonly params = new Params();
  private intermediates = "";
  private privateMarker = "";
  /** An ESC sequence passed MAX_INTERMEDIATES (CSI and DCS have IGNORE states for that). */
  private escIgnoring = false;
  private readonly utf8 = new Utf8Decoder();
  private readonly printBuffer = new Uint32Array(PRINT_BUFFER_SIZE);
  /** OSC payload; grows by doubling up to MAX_OSC_BYTES. */
  private oscBuffer = new Uint8Array(256);
  private oscLength = 0;
  private oscOverflow = false;
  private dcsLength = 0;
  /** Offset of the byte being handled, for the performer's calls. */
  private at = 0;
  private seqStart = -1;
  /**
   * Stream offset of the next byte parse() reads: parse() moves it on by what it reads. A caller
   * that skips bytes without parsing them (plain text it knows changes nothing) moves it on
   * itself, so offsets keep counting the whole stream.
   */
  offset = 0;

  private readonly table = transitionTable();

  constructor(private readonly performer: Performer) {}

  get state(): S {
    return this.current;
  }

  /** Inside a Performer call: the offset of the byte that caused it (a CSI's final byte, the BEL
   * or the ESC that ended an OSC string, a C0 control). Meaningless inside print. */
  get position(): number {
    return this.at;
  }

  /** The offset of the ESC that began the sequence in progress, -1 in GROUND. Inside the call that
   * dispatches a sequence it is still that sequence's start. */
  get sequenceStart(): number {
    return this.seqStart;
  }

  /** Back to GROUND, forgetting any partial sequence or character without reporting it. */
  reset(): void {
    this.current = S.GROUND;
    this.clear();
    this.utf8.reset();
    this.oscLength = 0;
    this.oscOverflow = false;
    this.dcsLength = 0;
    this.seqStart = -1;
  }

  /** Feeds data[start..end). */
  parse(data: Uint8Array, start = 0, end = data.length): void {
    const performer = this.performer;
    const table = this.table;
    const exitAction = EXIT_ACTION;
    const entryAction = ENTRY_ACTION;
    let state = this.current;
    // data[i] is at stream offset base + i.
    const base = this.offset - start;
    let i = start;
    while (i < end) {
      const byte = data[i]!;
      if (state === S.GROUND && ((byte >= 0x20 && byte !== 0x7f) || this.utf8.pending)) {
        i = this.printRun(data, i, end);
        continue;
      }
      this.at = base + i;
      const entry = table[(state << 8) | byte]!;
      let next: S = entry & 0x0f;
      const transition = (entry & TRANSITION) !== 0;
      if (transition && exitAction[state] !== A.IGNORE) this.exit(state, byte);
      switch ((entry >> 4) & 0x0f) {
        case A.IGNORE:
          break;
        case A.EXECUTE:
          performer.execute(byte);
          break;
        case A.PARAM: {
          // The whole run of parameter bytes (0-9 : ;) at once.
          const after = this.params.parse(data, i, end);
          if (after < 0) next = isDcs(state) ? S.DCS_IGNORE : S.CSI_IGNORE;
          else i = after - 1;
          break;
        }
        case A.CSI_DISPATCH:
          performer.csi(this.params, this.intermediates, String.fromCharCode(byte), this.privateMarker);
          break;
        case A.COLLECT:
          next = this.collect(byte, state, next);
          break;
        case A.ESC_DISPATCH:
          if (!this.escIgnoring) performer.esc(this.intermediates, String.fromCharCode(byte));
          break;
        case A.PUT:
          // The whole run of put bytes at once, as one slice of the input.
          i = this.putRun(data, i, end, entry) - 1;
          if (this.dcsLength > MAX_DCS_BYTES) next = S.DCS_IGNORE;
          break;
        case A.OSC_PUT:
          i = this.oscPutRun(data, i, end, entry) - 1;
          break;
        case A.PRINT:
          // Unreachable: GROUND's printable bytes take the fast path above.
          i = this.printRun(data, i, end) - 1;
          break;
      }
      if (transition) {
        if (entryAction[next] !== A.IGNORE) this.enter(next, byte);
        // Every sequence starts at an ESC (there are no C1 controls), from any state.
        if (next === S.ESCAPE) this.seqStart = base + i;
        else if (next === S.GROUND) this.seqStart = -1;
      }
      state = next;
      i++;
    }
    this.current = state;
    this.offset = base + end;
  }

  /** GROUND's hot path: decodes printable bytes from `start` into code points, one print call
   * per run (or per PRINT_BUFFER_SIZE). Returns the index of the control byte that ended it. */
  private printRun(data: Uint8Array, start: number, end: number): number {
    const buf = this.printBuffer;
    const cap = buf.length;
    const utf8 = this.utf8;
    let i = start;
    let n = 0;
    while (i < end) {
      let byte = data[i]!;
      if (byte < 0x80 && !utf8.pending) {
        if (byte < 0x20 || byte === 0x7f) break;
        buf[n++] = byte;
        i++;
        while (i < end && n < cap) {
          byte = data[i]!;
          if (byte < 0x20 || byte >= 0x7f) break;
          buf[n++] = byte;
          i++;
        }
      } else {
        // Non-ASCII, or ASCII interrupting a split character (which gives U+FFFD first).
        i = utf8.decode(data, i, end, buf, n);
        n += utf8.written;
      }
      if (n >= cap) {
        this.performer.print(buf, 0, n);
        n = 0;
      }
    }
    if (n > 0) this.performer.print(buf, 0, n);
    return i;
  }

  /** DCS_PASSTHROUGH: hands the run of put bytes from `start` to dcsPut as one slice, up to
   * MAX_DCS_BYTES; past that, unhooks as cancelled and leaves dcsLength over the limit. */
  private putRun(data: Uint8Array, start: number, end: number, entry: number): number {
    const table = this.table;
    let j = start + 1;
    while (j < end && table[(S.DCS_PASSTHROUGH << 8) | data[j]!] === entry) j++;
    const room = MAX_DCS_BYTES - this.dcsLength;
    if (j - start <= room) {
      this.performer.dcsPut(data, start, j);
      this.dcsLength += j - start;
    } else {
      if (room > 0) this.performer.dcsPut(data, start, start + room);
      this.dcsLength = MAX_DCS_BYTES + 1;
      this.performer.dcsUnhook(true);
    }
    return j;
  }

  /** OSC_STRING: appends the run of osc_put bytes from `start`, unless the string overflowed. */
  private oscPutRun(data: Uint8Array, start: number, end: number, entry: number): number {
    const table = this.table;
    let j = start + 1;
    while (j < end && table[(S.OSC_STRING << 8) | data[j]!] === entry) j++;
    if (this.oscOverflow) return j;
    const length = this.oscLength + (j - start);
    if (length > MAX_OSC_BYTES) {
      this.oscOverflow = true;
      return j;
    }
    if (length > this.oscBuffer.length) {
      let size = this.oscBuffer.length * 2;
      while (size < length) size *= 2;
      const grown = new Uint8Array(Math.min(size, MAX_OSC_BYTES));
      grown.set(this.oscBuffer.subarray(0, this.oscLength));
      this.oscBuffer = grown;
    }
    const buf = this.oscBuffer;
    for (let k = start, at = this.oscLength; k < j; k++, at++) buf[at] = data[k]!;
    this.oscLength = length;
    return j;
  }

  /** collect: a private marker, or an intermediate up to MAX_INTERMEDIATES. Returns the state to
   * go to, which is an IGNORE state when a CSI or DCS has too many intermediates. */
  private collect(byte: number, state: S, next: S): S {
    if (byte >= 0x3c) {
      this.privateMarker = String.fromCharCode(byte);
      return next;
    }
    if (this.intermediates.length >= MAX_INTERMEDIATES) {
      if (state === S.ESCAPE || state === S.ESCAPE_INTERMEDIATE) {
        this.escIgnoring = true;
        return next;
      }
      return isDcs(state) ? S.DCS_IGNORE : S.CSI_IGNORE;
    }
    this.intermediates += String.fromCharCode(byte);
    return next;
  }

  private clear(): void {
    this.params.reset();
    this.intermediates = "";
    this.privateMarker = "";
    this.escIgnoring = false;
  }

  /** The exit action of `state`, leaving it because of `byte`. */
  private exit(state: S, byte: number): void {
    switch (EXIT_ACTION[state]) {
      case A.OSC_END:
        if (!this.oscOverflow && byte !== CAN && byte !== SUB) {
          this.performer.osc(decodeUtf8(this.oscBuffer, 0, this.oscLength), byte === BEL);
        }
        break;
      case A.UNHOOK:
        this.performer.dcsUnhook(byte === CAN || byte === SUB);
        break;
    }
  }

  /** The entry action of `state`, entered because of `byte`. */
  private enter(state: S, byte: number): void {
    switch (ENTRY_ACTION[state]) {
      case A.CLEAR:
        this.clear();
        break;
      case A.OSC_START:
        // Give back the memory of a huge earlier string (an OSC 52 clipboard copy).
        if (this.oscBuffer.length > 0x10000) this.oscBuffer = new Uint8Array(256);
        this.oscLength = 0;
        this.oscOverflow = false;
        break;
      case A.HOOK:
        this.dcsLength = 0;
        this.performer.dcsHook(this.params, this.intermediates, String.fromCharCode(byte), this.privateMarker);
        break;
    }
  }
}

function isDcs(state: S): boolean {
  return state >= S.DCS_ENTRY && state <= S.DCS_IGNORE;
}
