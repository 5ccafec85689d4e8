// Big lines parsed in the worker come back as JSON.parse would have made them here: their big
// strings put back where they were, whatever the nesting, and faults named as for short lines.
import { afterAll, expect, test } from "bun:test";
import { LineSplitter } from "../protocol/framing.ts";
import { BIG_STRING, LINE_OFF_THREAD, LineParser, type LineParsed } from "./line-parser.ts";

const parser = new LineParser();
afterAll(() => parser.close());

/** `text` fed in 64 KiB chunks, as a socket delivers it: every frame, the long ones parsed. */
async function parse(text: string | Uint8Array, by = parser): Promise<(LineParsed | { line: string })[]> {
  const bytes = typeof text === "string" ? Buffer.from(text) : text;
  const splitter = new LineSplitter(16 * 1024 * 1024, by.offThread);
  const frames = [];
  for (let i = 0; i < bytes.length; i += 65536) frames.push(...splitter.push(bytes.subarray(i, i + 65536)));
  return Promise.all(frames.map((f) => ("long" in f ? f.long.parsed : (f as { line: string }))));
}

test("a big line's message comes back whole: big strings in objects and arrays, small values, a __proto__ key", async () => {
  const big = (c: string) => c.repeat(BIG_STRING + 7);
  const msg = {
    jsonrpc: "2.0",
    id: 7,
    method: "session.input",
    params: { paste: big("é"), keys: ["Enter", big("a"), { deep: [big("€")] }], n: 1.5, flag: true, none: null },
    pad: "x".repeat(LINE_OFF_THREAD),
  };
  // A key JSON.parse makes an own property, which an assignment would take for the prototype.
  const line = JSON.stringify(msg).replace('"n":', `"__proto__":"${big("p")}","n":`);
  const [parsed, after] = await parse(`${line}\r\n{"short":1}\n`);
  expect(parsed).toEqual({ msg: JSON.parse(line) });
  const params = (parsed as { msg: { params: object } }).msg.params;
  expect(Object.getPrototypeOf(params)).toBe(Object.prototype);
  expect(Object.getOwnPropertyDescriptor(params, "__proto__")?.value).toHaveLength(BIG_STRING + 7);
  expect(after).toEqual({ line: '{"short":1}' });
});

test("a big line that is one string, or not JSON, or not UTF-8", async () => {
  const s = "z".repeat(LINE_OFF_THREAD);
  expect(await parse(`${JSON.stringify(s)}\n`)).toEqual([{ msg: s }]);
  const [bad] = await parse(`{"a":"${s}"\n`);
  expect((bad as { malformed: string }).malformed).toStartWith("invalid JSON");
  const [notUtf8] = await parse(Buffer.concat([Buffer.from(`"${s}`), Buffer.from([0xff, 0x22, 0x0a])]));
  expect(notUtf8).toEqual({ malformed: "request line is not valid UTF-8" });
});

test("a big string deep in the message comes back to its place; a line nested past the stack is refused, and the next is parsed", async () => {
  const depth = 1000;
  const deep = `${"[0,".repeat(depth)}"${"d".repeat(LINE_OFF_THREAD)}"${"]".repeat(depth)}`;
  const [back] = await parse(`${deep}\n`);
  expect(back).toEqual({ msg: JSON.parse(deep) });
  const past = 140_000;
  const [refused, after] = await parse(`${"[".repeat(past)}${"]".repeat(past)}\n"${"z".repeat(LINE_OFF_THREAD)}"\n`);
  expect((refused as { malformed: string }).malformed).toStartWith("request nested too deeply");
  expect(after).toEqual({ msg: "z".repeat(LINE_OFF_THREAD) });
});

test("a closed parser ends its worker and answers the lines in it and every line after as faults; another parser is not touched", async () => {
  const closing = new LineParser();
  const other = new LineParser();
  const big = `"${"b".repeat(LINE_OFF_THREAD)}"`;
  expect(await parse(`${big}\n`, closing)).toEqual([{ msg: JSON.parse(big) }]);
  expect([closing.running, other.running]).toEqual([true, false]);
  // Ended, not yet parsed: closed before the worker's answer can come.
  const line = closing.offThread.start();
  line.piece(Buffer.from(big));
  const { parsed } = line.end();
  const body = closing.parseBody([Buffer.from(big)]);
  closing.close();
  const shut = { malformed: "the daemon is shutting down" };
  expect(await Promise.all([parsed, body])).toEqual([shut, shut]);
  expect(closing.running).toBe(false);
  expect(await parse(`${big}\n`, closing)).toEqual([shut]);
  expect(closing.running).toBe(false);
  expect(await parse(`${big}\n`, other)).toEqual([{ msg: JSON.parse(big) }]);
  other.close();
});
