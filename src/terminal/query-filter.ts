// Queries cut out of a byte stream by parsing it here, for output the session's vt tap no longer
// has ranges for (query-ranges.ts: a subscriber that fell further behind than the tap's record,
// or a tap that did not read these bytes). The live stream never comes this way: the tap has
// parsed it once already. The recogniser is the tap's own (QueryRecorder on a private parser), so
// both cut exactly the same bytes. Fed one subscriber's chunks in order; the bytes of a sequence
// that may still be a query are held back until it is decided (at most MAX_QUERY_BYTES).
import { NoopPerformer, Parser, ParserState, type Params } from "../vt/index.ts";
import { QueryRanges, QueryRecorder } from "./query-ranges.ts";

const ESC = 0x1b;
const NONE = new Uint8Array(0);

class Finder extends NoopPerformer {
  readonly parser = new Parser(this);
  /** Unbounded here: the filter drops what it has given out. */
  readonly ranges = new QueryRanges(0, Infinity);
  readonly recorder = new QueryRecorder(this.parser, this.ranges);

  override execute(): void {
    this.recorder.execute();
  }
  override csi(params: Params, intermediates: string, final: string, marker: string): void {
    this.recorder.csi(params, intermediates, final, marker);
  }
  override esc(intermediates: string, final: string): void {
    this.recorder.esc(intermediates, final);
  }
  override osc(data: string, bellTerminated: boolean): void {
    this.recorder.osc(data, bellTerminated);
  }
  override dcsHook(params: Params, intermediates: string, final: string, marker: string): void {
    this.recorder.dcsHook(params, intermediates, final, marker);
  }
  override dcsUnhook(cancelled: boolean): void {
    this.recorder.dcsUnhook(cancelled);
  }
}

export class QueryFilter {
  private readonly f = new Finder();
  /** Read and not given out yet, from stream offset `heldFrom`: an undecided sequence. */
  private held = NONE;
  private heldFrom = 0;

  /** Bytes held back at the end of the last chunk, waiting for the sequence to be decided. */
  get pending(): number {
    return this.held.length;
  }

  /** The chunk without the queries; the result may be `chunk` itself when nothing changed. */
  filter(chunk: Uint8Array): Uint8Array {
    const parser = this.f.parser;
    const from = parser.offset;
    if (this.held.length === 0 && parser.state === ParserState.GROUND && chunk.indexOf(ESC) < 0) {
      parser.offset += chunk.length;
      this.heldFrom = parser.offset;
      return chunk;
    }
    parser.parse(chunk);
    let bytes = chunk;
    let start = from;
    if (this.held.length > 0) {
      bytes = new Uint8Array(this.held.length + chunk.length);
      bytes.set(this.held);
      bytes.set(chunk, this.held.length);
      start = this.heldFrom;
    }
    const hold = this.f.recorder.holdFrom() ?? parser.offset;
    const out = this.f.ranges.cut(bytes.subarray(0, hold - start), start);
    this.held = bytes.slice(hold - start);
    this.heldFrom = hold;
    this.f.ranges.dropBefore(hold);
    return out;
  }

  /** Gives back what is held (the stream ended inside a sequence) and starts over. */
  flush(): Uint8Array {
    const out = this.held;
    this.reset();
    return out;
  }

  reset(): void {
    this.f.parser.reset();
    this.held = NONE;
    this.heldFrom = this.f.parser.offset;
    this.f.ranges.restart(this.heldFrom);
  }
}
