// UTF-8 to code points for the parser, after the WHATWG Encoding Standard's decoder: a sequence
// split across chunks waits in the decoder's state for the next chunk, and every ill-formed
// subsequence becomes one U+FFFD (overlongs, surrogates and values past U+10FFFF included), so
// the result matches TextDecoder's. Pure ECMAScript: TextDecoder is not part of the language.

export const REPLACEMENT = 0xfffd;

export class Utf8Decoder {
  private code = 0;
  /** Continuation bytes still needed by the sequence in progress; 0 when none is. */
  private need = 0;
  /** Range the next continuation byte must fall in (narrower after E0, ED, F0, F4). */
  private lower = 0x80;
  private upper = 0xbf;
  /** Code points written by the last decode() or flush(). */
  written = 0;

  /** True while a multi-byte sequence is incomplete. */
  get pending(): boolean {
    return this.need !== 0;
  }

  reset(): void {
    this.code = 0;
    this.need = 0;
    this.lower = 0x80;
    this.upper = 0xbf;
  }

  /**
   * Decodes src[start..end) into dst from dstPos while there is room, stopping before a byte
   * below 0x80 that does not interrupt a sequence. An ASCII byte that interrupts one gives U+FFFD
   * and is not consumed. Returns the index of the first byte not consumed; sets `written`.
   */
  decode(src: Uint8Array, start: number, end: number, dst: Uint32Array, dstPos: number): number {
    let i = start;
    let pos = dstPos;
    const room = dst.length;
    while (i < end && pos < room) {
      const byte = src[i]!;
      if (this.need === 0) {
        if (byte < 0x80) break;
        i++;
        if (byte >= 0xc2 && byte <= 0xdf) {
          this.need = 1;
          this.code = byte & 0x1f;
        } else if (byte >= 0xe0 && byte <= 0xef) {
          if (byte === 0xe0) this.lower = 0xa0;
          else if (byte === 0xed) this.upper = 0x9f;
          this.need = 2;
          this.code = byte & 0x0f;
        } else if (byte >= 0xf0 && byte <= 0xf4) {
          if (byte === 0xf0) this.lower = 0x90;
          else if (byte === 0xf4) this.upper = 0x8f;
          this.need = 3;
          this.code = byte & 0x07;
        } else {
          dst[pos++] = REPLACEMENT;
        }
        continue;
      }
      if (byte < this.lower || byte > this.upper) {
        // The sequence so far is one ill-formed subsequence; the byte is looked at again.
        this.reset();
        dst[pos++] = REPLACEMENT;
        continue;
      }
      i++;
      this.lower = 0x80;
      this.upper = 0xbf;
      this.code = (this.code << 6) | (byte & 0x3f);
      if (--this.need === 0) {
        dst[pos++] = this.code;
        this.code = 0;
      }
    }
    this.written = pos - dstPos;
    return i;
  }

  /** Ends the input: an incomplete sequence becomes U+FFFD at dst[dstPos]. Sets `written`. */
  flush(dst: Uint32Array, dstPos: number): void {
    this.written = 0;
    if (this.need === 0) return;
    this.reset();
    dst[dstPos] = REPLACEMENT;
    this.written = 1;
  }
}

/** The string of code points cps[start..end), e.g. from Performer.print. */
export function codepointsToString(cps: Uint32Array, start = 0, end = cps.length): string {
  let out = "";
  const units: number[] = [];
  for (let i = start; i < end; i++) {
    const cp = cps[i]!;
    if (cp < 0x10000) {
      units.push(cp);
    } else {
      const v = cp - 0x10000;
      units.push(0xd800 | (v >> 10), 0xdc00 | (v & 0x3ff));
    }
    if (units.length >= 8192) {
      out += String.fromCharCode(...units);
      units.length = 0;
    }
  }
  return units.length > 0 ? out + String.fromCharCode(...units) : out;
}

/** Decodes a whole byte range (an OSC payload) to a string, ill-formed parts as U+FFFD. */
export function decodeUtf8(bytes: Uint8Array, start = 0, end = bytes.length): string {
  const decoder = new Utf8Decoder();
  const cps = new Uint32Array(Math.min(end - start, 8192) + 1);
  let out = "";
  let i = start;
  while (i < end) {
    let n = 0;
    while (i < end && n < cps.length - 1) {
      const byte = bytes[i]!;
      if (byte < 0x80 && !decoder.pending) {
        cps[n++] = byte;
        i++;
      } else {
        i = decoder.decode(bytes, i, end, cps, n);
        n += decoder.written;
      }
    }
    if (i >= end) {
      decoder.flush(cps, n);
      n += decoder.written;
    }
    out += codepointsToString(cps, 0, n);
  }
  return out;
}
