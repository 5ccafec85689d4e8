import { expect, test } from "bun:test";
import { unsentLine } from "./unsent-line.ts";

test("typed text counts as waiting only on the main screen and while its end is shown; the advice is a Backspace per character", () => {
  expect(unsentLine({ alternate: false, lines: [">>> 6*"] }, "6*")).toBe(
    'press_keys ["Backspace","Backspace"] takes back the 2 characters typed',
  );
  // vim (alternate screen): Escape left insert mode, the text is in the buffer, not on an input line.
  expect(unsentLine({ alternate: true, lines: ["hello", "~"] }, "hello")).toBeNull();
  // Taken back, or sent: no longer on the screen.
  expect(unsentLine({ alternate: false, lines: [">>> "] }, "6*")).toBeNull();
  expect(unsentLine({ alternate: false, lines: ["$ a long line of text typed in"] }, "a long line of text typed in")).toBe(
    'press_keys with "Backspace" 28 times takes back the 28 characters typed',
  );
});
