// `interminai wait --line`'s arguments through the real entry (`termd interminai`): checked before
// the socket is reached. (Waiting itself: test/dialects/interminai.test.ts.)
import { expect, test } from "bun:test";
import { runProcess, SOURCE_BIN } from "../../../test/harness.ts";

test("--line is a row from 1, with --contains or --not-contains but not both", async () => {
  const cases: [string[], number, string][] = [
    [["--line", "0"], 1, "Error: line number must be 1 or greater (1-based)\n"],
    [["--line", "x"], 2, "error: invalid value 'x' for '--line <LINE>': invalid digit found in string\n"],
    [["--line", "1", "--contains", "a", "--not-contains", "b"], 1, "Error: --not-contains and --contains are mutually exclusive\n"],
  ];
  for (const [args, code, stderr] of cases) {
    const r = await runProcess([...SOURCE_BIN, "interminai", "wait", "--socket", "/nonexistent/socket", ...args]);
    expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code, stderr });
  }
});
