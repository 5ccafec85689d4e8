// What the parser reports, as alacritty/vte's Perform trait: one method per kind of event, none of
// them given any meaning here. Extend NoopPerformer and override only what you need.
//
// Arguments are views into the parser's reused buffers (print's code points, the Params, dcsPut's
// bytes): they are valid only until the method returns. Copy what you keep. A method must not
// throw or call back into the parser (parse, reset): the parser keeps its state in locals while
// it walks a chunk, and writes it back only at the end.
import type { Params } from "./params.ts";

export interface Performer {
  /** A run of printable characters as Unicode code points: codes[start..end). A run may arrive in
   * several calls (chunk ends, PRINT_BUFFER_SIZE); codepointsToString() makes a string of it. */
  print(codes: Uint32Array, start: number, end: number): void;
  /** A C0 control byte (BEL, BS, HT, LF, CR …), also when it arrives inside a CSI or ESC sequence. */
  execute(code: number): void;
  /** A control sequence, e.g. CSI ? 25 h → params "25", intermediates "", final "h", marker "?". */
  csi(params: Params, intermediates: string, final: string, privateMarker: string): void;
  /** An escape sequence, e.g. ESC ( B → intermediates "(", final "B". ST (ESC \) arrives here as
   * final "\\" after the string it ended. */
  esc(intermediates: string, final: string): void;
  /** An operating system command's payload, e.g. "0;title", decoded as UTF-8. bellTerminated
   * tells BEL from ST (ESC …), so a reply can end the way the query did. */
  osc(data: string, bellTerminated: boolean): void;
  /** A device control string starts; its payload follows through dcsPut. */
  dcsHook(params: Params, intermediates: string, final: string, privateMarker: string): void;
  /** Payload bytes of the current device control string: data[start..end). */
  dcsPut(data: Uint8Array, start: number, end: number): void;
  /** The device control string ended: by ST (ESC …) or, with cancelled = true, by CAN, SUB or
   * passing MAX_DCS_BYTES. */
  dcsUnhook(cancelled: boolean): void;
}

export class NoopPerformer implements Performer {
  print(_codes: Uint32Array, _start: number, _end: number): void {}
  execute(_code: number): void {}
  csi(_params: Params, _intermediates: string, _final: string, _privateMarker: string): void {}
  esc(_intermediates: string, _final: string): void {}
  osc(_data: string, _bellTerminated: boolean): void {}
  dcsHook(_params: Params, _intermediates: string, _final: string, _privateMarker: string): void {}
  dcsPut(_data: Uint8Array, _start: number, _end: number): void {}
  dcsUnhook(_cancelled: boolean): void {}
}
