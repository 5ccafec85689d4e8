// The daemon's INVALID_PARAMS details, as the command line words them: flags, not fields.
import { expect, test } from "bun:test";
import { inFlagTerms } from "./param-errors.ts";

const issue = (path: string, expected: string | null, received: string, message = "") => ({ path, expected, received, message });

test("a bound is said of the flag that fills the field", () => {
  expect(inFlagTerms({ issues: [issue("settle_ms", ">=1", "0")] })).toBe("--settle must be at least 1 (got 0)");
  expect(inFlagTerms({ issues: [issue("size.cols", "<=1000", "5000")] })).toBe("--cols must be at most 1000 (got 5000)");
  expect(inFlagTerms({ issues: [issue("rows", ">=1", "0"), issue("cols", ">=1", "0")] })).toBe(
    "--rows must be at least 1 (got 0); --cols must be at least 1 (got 0)",
  );
});

test("a rule's own words are kept, about the flag; any other rule says the value is not valid", () => {
  expect(inFlagTerms({ issues: [issue("name", null, '"-x"', "name must not start with '-'")] })).toBe(
    `--name must not start with '-' (got "-x")`,
  );
  expect(inFlagTerms({ issues: [issue("fresh", null, '"later"', "Invalid type")] })).toBe('--fresh is not valid here (got "later")');
  // A field no flag fills is named as it is.
  expect(inFlagTerms({ issues: [issue("meta", null, "1", "Invalid type")] })).toBe("meta is not valid here (got 1)");
});

test("a check on the whole request keeps its words, the fields it lists named as flags", () => {
  const message = "give at least one of text, regex, gone, exit, activity, settle_ms, command_done, prompt, changed_from";
  expect(inFlagTerms({ issues: [issue("", null, "{}", message)] })).toBe(
    "give at least one of --text, --regex, --gone, --exit, --activity, --settle, --command-done, --prompt, --changed-from",
  );
  expect(inFlagTerms({ issues: [issue("", null, "{}", "the screen is too big: 2000000 cells")] })).toBe(
    "the screen is too big: 2000000 cells",
  );
});

test("details without issues have no flag wording", () => {
  expect(inFlagTerms({})).toBeNull();
  expect(inFlagTerms({ issues: [] })).toBeNull();
});
