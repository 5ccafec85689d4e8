// The command line's flag parser and its value readers.
import { expect, test } from "bun:test";
import { parseArgs, parseDuration, UsageError, type FlagSpec } from "./args.ts";

const SPEC: Record<string, FlagSpec> = {
  name: { kind: "string", short: "n", help: "" },
  text: { kind: "string", repeat: true, help: "" },
  keys: { kind: "string", repeat: true, help: "" },
  rows: { kind: "number", help: "" },
  force: { kind: "boolean", short: "f", help: "" },
};

test("values after the flag or after =, short names, positionals anywhere, and everything after -- untouched", () => {
  const p = parseArgs(["s1", "-n", "job", "--rows=30", "-f", "s2", "--text", "-x", "--", "--rows", "x"], SPEC);
  expect(p.positional).toEqual(["s1", "s2"]);
  expect(p.rest).toEqual(["--rows", "x"]);
  expect(Object.fromEntries(p.flags)).toEqual({ name: ["job"], rows: [30], force: [true], text: ["-x"] });
});

test("repeatable flags keep the order they were given in, among the others", () => {
  const p = parseArgs(["--text", "a", "--keys", "Enter", "--text", "b"], SPEC);
  expect(p.ordered).toEqual([
    { name: "text", value: "a" },
    { name: "keys", value: "Enter" },
    { name: "text", value: "b" },
  ]);
  expect(p.flags.get("text")).toEqual(["a", "b"]);
});

test("each mistake is a usage error that names the flag", () => {
  const cases: [string[], string][] = [
    [["--bogus"], "unknown option --bogus"],
    [["-z"], "unknown option -z"],
    [["--force=yes"], "--force takes no value"],
    [["--name"], "--name needs a value"],
    [["--rows", "1.5"], '--rows needs a whole number, not "1.5"'],
    [["--rows", "-1"], '--rows needs a whole number, not "-1"'],
    [["--rows="], '--rows needs a whole number, not ""'],
    [["-n", "a", "--name", "b"], "--name given twice"],
  ];
  for (const [argv, message] of cases) expect(() => parseArgs(argv, SPEC)).toThrow(new UsageError(message));
});

test("durations: ms, s, m, h, d or plain seconds, fractions too; anything else names the flag", () => {
  expect(["500ms", "90s", "90", "1.5m", "24h", "2d", " 3s "].map((t) => parseDuration(t, "ttl"))).toEqual([
    500, 90_000, 90_000, 90_000, 86_400_000, 172_800_000, 3000,
  ]);
  expect(() => parseDuration("soon", "ttl")).toThrow(new UsageError('--ttl needs a duration like 90s, 30m, 24h or 2d, not "soon"'));
  expect(() => parseDuration("-5s", "ttl")).toThrow(UsageError);
});
