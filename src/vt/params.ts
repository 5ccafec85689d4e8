// The numeric parameters of one CSI or DCS sequence, with colon sub-parameters kept apart from
// semicolon parameters (xterm.js's Params idea): "38:2::255:0:0;1" is two parameters, 38 with the
// sub-parameters [2, omitted, 255, 0, 0], and 1. Storage is fixed-size and reused for every
// sequence, so a performer must copy what it wants to keep before its call returns.
import { MAX_PARAMS, MAX_PARAM_VALUE } from "./constants.ts";

/** Stored for a field with no digits, e.g. both fields of "CSI ; H". */
export const OMITTED = -1;

export class Params {
  /** Number of parameters (fields before a ';' or the end, sub-parameters not counted). */
  length = 0;
  /** Parameters and sub-parameters in the order received; OMITTED where a field had no digits. */
  readonly fields = new Int32Array(MAX_PARAMS);
  /** 1 where the field followed a ':', i.e. is a sub-parameter of the parameter before it. */
  readonly isSub = new Uint8Array(MAX_PARAMS);
  /** Number of fields in use. */
  fieldCount = 0;
  /** Index in `fields` of each parameter. */
  private readonly starts = new Uint8Array(MAX_PARAMS);

  reset(): void {
    this.length = 0;
    this.fieldCount = 0;
  }

  /**
   * Feeds the run of parameter bytes (0-9, ':', ';') at data[start..end), stopping before any
   * other byte; returns the index after the last byte used. Returns -1 instead when the sequence
   * needs more than MAX_PARAMS fields: the caller then ignores the whole sequence.
   */
  parse(data: Uint8Array, start: number, end: number): number {
    const fields = this.fields;
    let count = this.fieldCount;
    if (count === 0) {
      fields[0] = OMITTED;
      this.isSub[0] = 0;
      this.starts[0] = 0;
      this.length = 1;
      count = 1;
    }
    // The field being written stays in a local until the run ends.
    let value = fields[count - 1]!;
    let i = start;
    for (; i < end; i++) {
      const byte = data[i]!;
      if (byte >= 0x30 && byte <= 0x39) {
        value = (value < 0 ? 0 : value * 10) + (byte - 0x30);
        if (value > MAX_PARAM_VALUE) value = MAX_PARAM_VALUE;
      } else if (byte === 0x3b || byte === 0x3a) {
        fields[count - 1] = value;
        if (count === MAX_PARAMS) {
          this.fieldCount = count;
          return -1;
        }
        if (byte === 0x3a) {
          this.isSub[count] = 1;
        } else {
          this.isSub[count] = 0;
          this.starts[this.length++] = count;
        }
        value = OMITTED;
        count++;
      } else {
        break;
      }
    }
    fields[count - 1] = value;
    this.fieldCount = count;
    return i;
  }

  /** Parameter `index`, or `fallback` when it was omitted or not sent at all. */
  get(index: number, fallback = 0): number {
    if (index >= this.length) return fallback;
    const value = this.fields[this.starts[index]!]!;
    return value < 0 ? fallback : value;
  }

  hasSubParams(index: number): boolean {
    if (index >= this.length) return false;
    const next = this.starts[index]! + 1;
    return next < this.fieldCount && this.isSub[next] === 1;
  }

  /** Sub-parameters of parameter `index` (OMITTED where empty); [] when it has none. */
  subParams(index: number): number[] {
    const out: number[] = [];
    if (index >= this.length) return out;
    for (let at = this.starts[index]! + 1; at < this.fieldCount && this.isSub[at] === 1; at++) {
      out.push(this.fields[at]!);
    }
    return out;
  }

  /** The parameters as sent, e.g. "38:2::255:0:0;1" ("" when there were none). */
  toString(): string {
    let out = "";
    for (let at = 0; at < this.fieldCount; at++) {
      if (at > 0) out += this.isSub[at] === 1 ? ":" : ";";
      const value = this.fields[at]!;
      if (value >= 0) out += value;
    }
    return out;
  }
}
