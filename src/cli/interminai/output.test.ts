// `interminai output`'s arguments through the real entry (`termd interminai`): they are checked
// before any socket is reached. (What it prints: test/dialects/interminai.test.ts.)
import { expect, test } from "bun:test";
import { runProcess, SOURCE_BIN } from "../../../test/harness.ts";

const output = (args: string[]) => runProcess([...SOURCE_BIN, "interminai", "output", "--socket", "/nonexistent/socket", ...args]);

test("--cursor takes none, inverse, print or both; anything else is clap's usage error, not a screen with no cursor", async () => {
  expect(await output(["--cursor", "bogus"])).toEqual({
    code: 2,
    stdout: "",
    stderr:
      "error: invalid value 'bogus' for '--cursor <CURSOR>'\n  [possible values: none, inverse, print, both]\n\nFor more information, try '--help'.\n",
  });
  // A valid one gets as far as the socket.
  expect(await output(["--cursor", "both"])).toMatchObject({ code: 1, stderr: expect.stringContaining("No such file") });
});

test("--from takes an integer or -, --to an integer", async () => {
  expect(await output(["--from", "x"])).toMatchObject({
    code: 2,
    stderr: expect.stringContaining("invalid value 'x' for '--from <FROM>': expected an integer or '-'"),
  });
  expect(await output(["--to", "-"])).toMatchObject({ code: 2, stderr: expect.stringContaining("invalid value '-' for '--to <TO>'") });
});
