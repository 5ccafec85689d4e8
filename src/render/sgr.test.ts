import { expect, test } from "bun:test";
import { sgrParams } from "./sgr.ts";

test("the default style sets nothing", () => {
  expect(sgrParams({})).toEqual([]);
});

test("attributes in SGR order, blink as xterm's SGR 5", () => {
  expect(
    sgrParams({ bold: true, dim: true, italic: true, underline: true, blink: true, inverse: true, hidden: true, strike: true }),
  ).toEqual(["1", "2", "3", "4", "5", "7", "8", "9"]);
  expect(sgrParams({ blink: true })).toEqual(["5"]);
});

test("colours: the 8 and their bright forms, the 256-colour palette, true colour; foreground before background", () => {
  expect(sgrParams({ fg: 1, bg: 2 })).toEqual(["31", "42"]);
  expect(sgrParams({ fg: 9, bg: 15 })).toEqual(["91", "107"]);
  expect(sgrParams({ fg: 202, bg: 16 })).toEqual(["38;5;202", "48;5;16"]);
  expect(sgrParams({ bold: true, fg: "#ff8000", bg: "#000001" })).toEqual(["1", "38;2;255;128;0", "48;2;0;0;1"]);
});
