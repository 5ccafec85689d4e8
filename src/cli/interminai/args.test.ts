// interminai's argument parser: clap's behaviour and messages (/work/shared/interminai-cli.md §3).
import { expect, test } from "bun:test";
import { UsageError } from "../args.ts";
import { Failure, helpText, parse, parseSize, SOCKET, type Subcommand } from "./args.ts";

const sub: Subcommand = {
  name: "demo",
  about: "A demo",
  opts: [
    SOCKET,
    { long: "number", short: "n", help: "Number lines" },
    { long: "from", value: "FROM", help: "First line" },
    { long: "mode", value: "MODE", help: "A mode", possible: ["a", "b"] },
  ],
  trailing: { name: "COMMAND", help: "The program" },
  run: async () => 0,
};

const usageTail = "\n\nUsage: interminai demo [OPTIONS] --socket <SOCKET> -- <COMMAND>...\n\nFor more information, try '--help'.\n";

test("long options in any order, --name=value, values that start with -, -n, and the program after -- or without it", () => {
  const a = parse(sub, ["-n", "--from", "-5", "--socket=/s", "--", "vim", "--clean"])!;
  expect({ values: Object.fromEntries(a.values), flags: [...a.flags], trailing: a.trailing }).toEqual({
    values: { from: "-5", socket: "/s" },
    flags: ["number"],
    trailing: ["vim", "--clean"],
  });
  expect(parse(sub, ["--socket", "/s", "bash", "-c", "x"])!.trailing).toEqual(["bash", "-c", "x"]);
  expect(parse(sub, ["--socket", "/s", "--help"])).toBeNull();
});

test("clap's messages: an unknown or repeated option, a missing value, a value not allowed, what is required", () => {
  const fails = (argv: string[]) => {
    try {
      parse(sub, argv);
    } catch (e) {
      expect(e).toBeInstanceOf(UsageError);
      return (e as Error).message;
    }
    throw new Error(`parsed: ${argv.join(" ")}`);
  };
  expect(fails(["--socket", "/s", "--bogus", "--", "x"])).toBe(`error: unexpected argument '--bogus' found${usageTail}`);
  expect(fails(["--socket", "/s", "--from", "1", "--from", "2", "--", "x"])).toBe(
    `error: the argument '--from <FROM>' cannot be used multiple times${usageTail}`,
  );
  expect(fails(["--from"])).toBe(`error: a value is required for '--from <FROM>' but none was supplied${usageTail}`);
  expect(fails(["--socket", "/s", "--number=yes", "--", "x"])).toBe(
    `error: unexpected value 'yes' for '--number' found; no more were expected${usageTail}`,
  );
  expect(fails(["--socket", "/s", "--mode", "c", "--", "x"])).toBe(
    "error: invalid value 'c' for '--mode <MODE>'\n  [possible values: a, b]\n\nFor more information, try '--help'.\n",
  );
  expect(fails([])).toBe(`error: the following required arguments were not provided:\n  --socket <SOCKET>\n  <COMMAND>...${usageTail}`);
});

test("help lists the options in one column, --help last, and the allowed values", () => {
  expect(helpText(sub)).toBe(
    [
      "A demo",
      "",
      "Usage: interminai demo [OPTIONS] --socket <SOCKET> -- <COMMAND>...",
      "",
      "Arguments:",
      "  <COMMAND>...  The program",
      "",
      "Options:",
      "      --socket <SOCKET>  Unix socket path (required)",
      "  -n, --number           Number lines",
      "      --from <FROM>      First line",
      "      --mode <MODE>      A mode [possible values: a, b]",
      "  -h, --help             Print help",
      "",
    ].join("\n"),
  );
});

test("sizes are COLSxROWS, columns first, from 1x1 to 1000x1000; anything else is interminai's message", () => {
  expect(parseSize("40x10")).toEqual({ cols: 40, rows: 10 });
  expect(parseSize("80x100")).toEqual({ cols: 80, rows: 100 });
  for (const bad of ["notasize", "0x10", "10x0", "1001x10", "40X10", "40x", " 40x10"])
    expect(() => parseSize(bad)).toThrow(new Failure("Error: Invalid size format, expected WxH like 80x24"));
});
