import { expect, test } from "bun:test";
import { CommandLineError, splitCommand } from "./argv.ts";

test("splits on blanks and keeps quoted words whole", () => {
  expect(splitCommand("  vim  -u NONE file.txt ")).toEqual(["vim", "-u", "NONE", "file.txt"]);
  expect(splitCommand(`sh -c 'echo "a  b"; ls' x`)).toEqual(["sh", "-c", 'echo "a  b"; ls', "x"]);
  expect(splitCommand(`echo "say \\"hi\\" \\n" a\\ b ''`)).toEqual(["echo", 'say "hi" \\n', "a b", ""]);
  expect(splitCommand("pre'fix'\"ed\"")).toEqual(["prefixed"]);
  expect(splitCommand("   ")).toEqual([]);
});

test("an unclosed quote or a trailing backslash is an error that says which", () => {
  expect(() => splitCommand("echo 'a")).toThrow(new CommandLineError("a ' is not closed"));
  expect(() => splitCommand('echo "a')).toThrow(new CommandLineError('a " is not closed'));
  expect(() => splitCommand("echo a\\")).toThrow(new CommandLineError("a \\ ends the line"));
});
