// The thread big request lines are decoded and parsed in (line-parser.ts): a 10 MiB line took the
// daemon's thread 0.3–0.9 s, and every other client waited meanwhile.
import type { LineParsed } from "./line-parser.ts";

declare const self: Worker;

const decoder = new TextDecoder("utf-8", { fatal: true });

self.onmessage = (ev: MessageEvent<{ id: number; bytes: Uint8Array }>) => {
  const { id, bytes } = ev.data;
  let text: string;
  let out: LineParsed;
  try {
    text = decoder.decode(bytes);
  } catch {
    out = { malformed: "request line is not valid UTF-8" };
    return self.postMessage({ id, out });
  }
  try {
    out = { msg: JSON.parse(text.endsWith("\r") ? text.slice(0, -1) : text) };
  } catch (err) {
    out = { malformed: `invalid JSON: ${(err as Error).message}` };
  }
  self.postMessage({ id, out });
};
