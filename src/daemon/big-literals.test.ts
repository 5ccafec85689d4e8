// A big line's long literals, unescaped in its own bytes, are the strings JSON.parse makes of
// them; what JSON.parse must judge (a bad escape, a control character, a surrogate) is left to it.
import { expect, test } from "bun:test";
import { takeBigLiterals } from "./big-literals.ts";

const MIN = 64;
const pad = "x".repeat(MIN);
const fatal = new TextDecoder("utf-8", { fatal: true });

/** `line` parsed through takeBigLiterals, its markers put back; and how many literals it took. */
function parsed(line: string | Uint8Array, decoder = fatal): { msg: unknown; took: number } {
  const { rest, strings } = takeBigLiterals(typeof line === "string" ? Buffer.from(line) : line, MIN, decoder);
  const msg = JSON.parse(rest, (_key, v) => (typeof v === "string" ? (strings.get(v) ?? v) : v));
  return { msg, took: strings.size };
}

test("every escape JSON has, and raw UTF-8, come out as JSON.parse makes them", () => {
  // Not String.raw: Bun escapes its characters past ASCII.
  const escapes = '\\n\\t\\r\\b\\f\\"\\\\\\/ \\u0041\\u00e9\\u20ac\\u0000\\u001b\\uFFFF é € 😀';
  const lines: [string, number][] = [
    [`"${pad}${escapes}"`, 1],
    [`{"a":["${escapes}${pad}"],"b":"${pad}\\\\"}`, 2],
    [`["${pad}\\\\\\""]`, 1],
  ];
  for (const [line, took] of lines) expect(parsed(line)).toEqual({ msg: JSON.parse(line), took });
});

test("keys, short strings, surrogates' escapes stay for JSON.parse; a marker's look-alike in the line is only a string", () => {
  const line = `{"${pad}":"short","s":"${pad}\\ud83d\\ude00","lone":"${pad}\\udc00","t":"${pad}"}`;
  const { msg, took } = parsed(line);
  expect(msg).toEqual(JSON.parse(line));
  expect(took).toBe(1);
  const lookAlike = `["\\u0000${"0".repeat(16)}:0","${pad}"]`;
  expect(parsed(lookAlike).msg).toEqual(JSON.parse(lookAlike));
});

test("faults are JSON.parse's: a bad escape, a raw control character, an unterminated literal; bytes not UTF-8 throw or read as U+FFFD", () => {
  for (const line of [`["${pad}\\q"]`, `["${pad}\t"]`, `["${pad}\\u12"]`, `["${pad}`]) {
    const error = (() => {
      try {
        JSON.parse(line);
      } catch (err) {
        return (err as Error).message;
      }
    })();
    expect(() => parsed(line)).toThrow(error!);
  }
  const bad = Buffer.concat([Buffer.from(`["${pad}`), Buffer.from([0xff]), Buffer.from(`"]`)]);
  expect(() => parsed(new Uint8Array(bad))).toThrow();
  expect(parsed(new Uint8Array(bad), new TextDecoder("utf-8")).msg).toEqual([`${pad}\uFFFD`]);
});
