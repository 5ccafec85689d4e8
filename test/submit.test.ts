// Safe submit (session.input with submit) into programs that behave like agent TUIs
// (test/fixtures/tui-*.py): an Enter in the same burst as the text is a newline to them.
import { expect, test } from "bun:test";
import { join } from "node:path";
import type { Client } from "../src/client/index.ts";
import { TestDaemon } from "./harness.ts";

const fixture = (name: string) => join(import.meta.dir, "fixtures", name);

async function tui(c: Client, name: string, args: string[] = []): Promise<string> {
  const s = await c.call("session.create", { command: ["python3", fixture(name), ...args], cols: 120 });
  await c.call("session.wait", { session: s.id, text: "ready" });
  return s.id;
}

test("a plain text+Enter write is a newline to the TUI; safe submit submits 50 times in a row", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  const id = await tui(c, "tui-enter-burst.py");
  // The burst: Enter within 120 ms of the text becomes a newline in the prompt, nothing submitted.
  for (const word of ["one", "two", "three"]) await c.call("session.input", { session: id, text: `plain ${word}\r` });
  const plain = await c.call("session.wait", { session: id, text: "> plain one⏎plain two⏎plain three⏎" });
  expect(plain.outcome).toBe("matched");
  expect(plain.screen.lines.join("\n")).not.toContain("SUBMITTED");
  await c.call("session.input", { session: id, text: "", submit: true });
  await c.call("session.wait", { session: id, text: "SUBMITTED: plain one⏎plain two⏎plain three⏎" });

  for (let i = 0; i < 50; i++) {
    const r = await c.call("session.input", { session: id, text: `prompt number ${i}`, submit: true });
    expect(r.submit).toEqual({ shown: true, bracketed: false, enter_presses: 1, changed: true });
    const w = await c.call("session.wait", { session: id, text: `SUBMITTED: prompt number ${i}`, timeout_ms: 5000 });
    expect(w.match?.text).toBe(`SUBMITTED: prompt number ${i}`);
    // Exactly that: no newline crept in.
    expect(w.screen.lines[w.match!.row]).toBe(`SUBMITTED: prompt number ${i}`);
  }
}, 60_000);

test("with bracketed paste on, a text of several lines goes as a paste; a collapsed placeholder counts as shown", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  const id = await tui(c, "tui-paste-collapse.py");
  const text = "first line of a long prompt\nsecond line\nthird line that is longer than forty characters";
  const r = await c.call("session.input", { session: id, text, submit: true });
  expect(r.submit).toEqual({ shown: true, bracketed: true, enter_presses: 1, changed: true });
  const w = await c.call("session.wait", { session: id, text: "SUBMITTED:" });
  expect(w.screen.lines[w.match!.row]).toBe(`SUBMITTED: ${text.replaceAll("\n", "⏎")}`);
  // One line is typed, not pasted, and shows as itself.
  expect((await c.call("session.input", { session: id, text: "short", submit: true })).submit?.bracketed).toBe(false);
  expect((await c.call("session.wait", { session: id, regex: "^SUBMITTED: short$" })).outcome).toBe("matched");
});

test("an Enter that changes nothing is pressed once more, and the result says so", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  const id = await tui(c, "tui-enter-burst.py", ["--ignore-first-enter"]);
  const r = await c.call("session.input", { session: id, text: "busy at first", submit: true });
  expect(r.submit).toMatchObject({ shown: true, enter_presses: 2, changed: true });
  expect((await c.call("session.wait", { session: id, regex: "^SUBMITTED: busy at first$" })).outcome).toBe("matched");
  // termd send --submit says so on stderr.
  const again = await tui(c, "tui-enter-burst.py", ["--ignore-first-enter"]);
  const sent = await d.cli(["send", again, "--submit", "from the command line"]);
  expect(sent.code).toBe(0);
  expect(sent.stderr).toContain("the first Enter changed nothing on the screen, so Enter was pressed once more, which did");
  expect((await c.call("session.wait", { session: again, regex: "^SUBMITTED: from the command line$" })).outcome).toBe("matched");
});

test("kitty flags: Shift+Enter is CSI 13;2u, a newline in the prompt; safe submit's Enter submits", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  const id = await tui(c, "tui-kitty.py");
  await c.call("session.wait", { session: id, text: "ready" });
  expect((await c.call("session.info", { session: id })).modes.kitty_keyboard).toBe(1);
  await c.call("session.input", { session: id, text: "line one" });
  await c.call("session.wait", { session: id, text: "> line one" });
  await c.call("session.input", { session: id, keys: ["Shift+Enter"] });
  await c.call("session.wait", { session: id, text: "> line one⏎" });
  const r = await c.call("session.input", { session: id, text: "line two", submit: true });
  expect(r.submit?.enter_presses).toBe(1);
  expect((await c.call("session.wait", { session: id, regex: "^SUBMITTED: line one⏎line two$" })).outcome).toBe("matched");
});

test("text that never shows (no echo) is still submitted after the wait, and the result says it was not seen", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  const s = await c.call("session.create", {
    command: ["bash", "--norc", "--noprofile", "-c", 'read -s -p "secret: " x; echo; echo "got ${#x}"'],
  });
  await c.call("session.wait", { session: s.id, text: "secret:" });
  const r = await c.call("session.input", { session: s.id, text: "hidden", submit: true });
  expect(r.submit).toMatchObject({ shown: false, enter_presses: 1 });
  expect((await c.call("session.wait", { session: s.id, text: "got 6" })).outcome).toBe("matched");
});

test("submit types a one-line text as keys: vim's :wq after Escape saves and exits, even with bracketed paste on", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  const file = join(d.dir, "note.txt");
  const s = await c.call("session.create", { command: ["vim", "-u", "NONE", "-i", "NONE", "-N", "-c", "set t_BE=\\e[?2004h", file] });
  await c.call("session.wait", { session: s.id, regex: "note\\.txt" });
  // What a user types: insert, text, Escape, then ":wq" submitted.
  const sent = await d.cli(["send", s.id, "--keys", "i", "--text", "hello", "--keys", "Escape", "--submit", ":wq"]);
  expect(sent.code).toBe(0);
  expect(sent.stderr).toBe("");
  const w = await c.call("session.wait", { session: s.id, exit: true });
  expect(w.outcome).toBe("exited");
  expect(await Bun.file(file).text()).toBe("hello\n");
});

test("submit into readline (bash) and python3 types the line; a text of several lines goes as a paste", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  const sh = await c.call("session.create", { command: ["bash", "--norc", "--noprofile"], env: { PS1: "$ " } });
  await c.call("session.wait", { session: sh.id, text: "$" });
  await c.call("session.input", { session: sh.id, text: "bind 'set enable-bracketed-paste on'\r" });
  await c.call("session.wait", { session: sh.id, regex: "^\\$ $" });
  expect((await c.call("session.info", { session: sh.id })).modes.bracketed_paste).toBe(true);
  const one = await c.call("session.input", { session: sh.id, text: "echo one-$((6*7))", submit: true });
  expect(one.submit).toEqual({ shown: true, bracketed: false, enter_presses: 1, changed: true });
  await c.call("session.wait", { session: sh.id, regex: "^one-42$" });
  const two = await c.call("session.input", { session: sh.id, text: "echo first-$((1+1))\necho second-$((2+2))", submit: true });
  expect(two.submit).toMatchObject({ bracketed: true, enter_presses: 1 });
  await c.call("session.wait", { session: sh.id, regex: "^second-4$" });

  const py = await c.call("session.create", { command: ["python3", "-q"] });
  await c.call("session.wait", { session: py.id, text: ">>>" });
  const r = await c.call("session.input", { session: py.id, text: "6*7", submit: true });
  expect(r.submit).toEqual({ shown: true, bracketed: false, enter_presses: 1, changed: true });
  expect((await c.call("session.wait", { session: py.id, regex: "^42$" })).outcome).toBe("matched");
});

test("a program that takes no line: neither Enter changes the screen, and the result and the note say so instead of implying it went in", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  const s = await c.call("session.create", { command: ["sh", "-c", "stty -echo; echo deaf; exec sleep 100"] });
  await c.call("session.wait", { session: s.id, text: "deaf" });
  const sent = await d.cli(["send", s.id, "--submit", "anyone"]);
  expect(sent.stderr).toContain("Enter was pressed twice and the screen did not change: the program may not have taken the line");
  expect(sent.stderr).not.toContain("which did");
  const r = await c.call("session.input", { session: s.id, text: "", submit: true });
  expect(r.submit).toEqual({ shown: true, bracketed: false, enter_presses: 2, changed: false });
});
