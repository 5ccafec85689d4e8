// test.each titles as jest formats them: the values in turn, the index, a row's fields by name.
import { expect, test } from "bun:test";
import { eachTitle } from "./each-title.ts";

test("the specifiers take an array row's values in turn; %# is the index and %% a percent sign", () => {
  expect(eachTitle("shell %s", "zsh", 1)).toBe("shell zsh");
  expect(eachTitle("%s: %d + %i = %f (%j) #%# 100%%", ["sum", 1, 2.7, 3.5, { a: 1 }], 4)).toBe('sum: 1 + 2 = 3.5 ({"a":1}) #4 100%');
  expect(eachTitle("%o and %p", [[1, 2], "x"], 0)).toBe("[ 1, 2 ] and 'x'");
  // More specifiers than values: the rest stay as written.
  expect(eachTitle("%s %s", ["only"], 0)).toBe("only %s");
});

test("a row that is an object fills $name and $a.b with its fields; a name it does not have stays", () => {
  expect(eachTitle("$shell at $size.rows rows, $missing", { shell: "fish", size: { rows: 24 } }, 0)).toBe("fish at 24 rows, $missing");
});
