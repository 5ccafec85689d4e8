import { expect, test } from "bun:test";
import { ScreenHost } from "./screen-host.ts";
import type { FromWorker } from "./screen-messages.ts";

const enc = (s: string) => new TextEncoder().encode(s);

test("a read is written into a screen only when the screen shows the output up to the read's first byte", () => {
  const said: FromWorker[] = [];
  const host = new ScreenHost((m) => said.push(m));
  host.handle({ t: "open", id: 7, rows: 2, cols: 10, scrollback: 0, version: "test" });
  host.handle({ t: "write", id: 7, data: enc("ab"), end: 2, answer: true });
  // Behind (the daemon's thread still has bytes for it) or ahead: not this thread's to write.
  expect(host.writeAt(7, enc("zz"), 1)).toBe(false);
  expect(host.writeAt(7, enc("zz"), 3)).toBe(false);
  expect(host.writeAt(7, enc("cd"), 2)).toBe(true);
  host.report(7);
  const last = said.at(-1);
  expect(last).toMatchObject({ t: "state", id: 7, offset: 4 });
  expect(last?.t === "state" && last.state.lines[0]).toBe("abcd");
  // A query in a read written here is answered like one the daemon's thread sent.
  expect(host.writeAt(7, enc("\x1b[6n"), 4)).toBe(true);
  expect(said).toContainEqual({ t: "reply", id: 7, data: "\x1b[1;5R" });
  host.handle({ t: "close", id: 7 });
  expect(host.writeAt(7, enc("x"), 8)).toBe(false);
  expect(host.writeAt(8, enc("x"), 0)).toBe(false);
});
