// The command line's front (run.ts) in this process: what it answers itself, and the global flags
// it checks before a command runs. (Each command's errors and exit codes: commands/NAME.test.ts.)
import { expect, test } from "bun:test";
import { runInProcess } from "../../test/harness.ts";
import { BUILD, describeBuild } from "../protocol/version.ts";

test("no command prints the overview and is a usage error; --help and help print it and succeed", async () => {
  const bare = await runInProcess([]);
  expect(bare.code).toBe(2);
  expect(bare.stdout).toContain("  start ");
  for (const help of [["--help"], ["-h"], ["help"]]) expect(await runInProcess(help)).toEqual({ code: 0, stdout: bare.stdout, stderr: "" });
});

test("--version says which build this is, as JSON with --json, and takes nothing else", async () => {
  expect(await runInProcess(["--version"])).toEqual({ code: 0, stdout: `${describeBuild(BUILD)}\n`, stderr: "" });
  expect(JSON.parse((await runInProcess(["-V", "--json"])).stdout)).toEqual(BUILD);
  expect(await runInProcess(["version", "x"])).toEqual({
    code: 2,
    stdout: "",
    stderr: "termd --version: unexpected argument x (only --json)\n",
  });
});

test("an unknown command, a name every object has, and a --url that is not one are usage errors", async () => {
  for (const name of ["nonsense", "toString", "__proto__"])
    expect(await runInProcess([name])).toEqual({ code: 2, stdout: "", stderr: `termd: unknown command "${name}"; see termd --help\n` });
  const url = await runInProcess(["ls", "--url", "ftp://x"]);
  expect(url).toMatchObject({
    code: 2,
    stderr: expect.stringContaining('termd ls: --url needs http://HOST:PORT or https://HOST:PORT, not "ftp://x"\nusage: termd ls'),
  });
});

test("a command's --help is its usage, its help and the global flags; it reaches no daemon", async () => {
  const { code, stdout } = await runInProcess(["info", "--help"]);
  expect(code).toBe(0);
  expect(stdout).toStartWith("usage: termd info SESSION [--json]\n\nShows a session's state");
  expect(stdout).toContain("--socket PATH");
});
