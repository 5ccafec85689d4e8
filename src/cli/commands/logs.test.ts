// termd logs writes the output to standard output itself: through the real entry, against a daemon
// of this file's. (Text, --raw, --tail, --follow and a closed pipe: test/cli.test.ts.)
import { expect, test } from "bun:test";
import { sharedDaemon } from "../../../test/harness.ts";

const s = sharedDaemon();

test("logs --from starts at a byte offset, as text or raw", async () => {
  await s.c.call("session.create", { name: "l", command: ["printf", "abc\\n\\033[1mdef\\033[0m\\n"], cwd: s.dir });
  await s.c.call("session.wait", { session: "l", exit: true });
  expect(await s.d.cli(["logs", "l", "--from", "5"])).toEqual({ code: 0, stdout: "def\n", stderr: "" });
  expect((await s.d.cli(["logs", "l", "--from", "5", "--raw"])).stdout).toBe("\x1b[1mdef\x1b[0m\r\n");
  expect((await s.d.cli(["logs", "l", "--from", "1000"])).stdout).toBe("");
});

test("logs --cast prints an asciicast v2 recording of the output, timed", async () => {
  const r = await s.d.cli(["logs", "l", "--cast"]);
  expect(r.code).toBe(0);
  const [header, ...events] = r.stdout
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l));
  expect(header).toMatchObject({ version: 2, width: 80, height: 24 });
  const output = events.filter((e) => e[1] === "o");
  expect(output.map((e) => e[2]).join("")).toBe("abc\r\n\x1b[1mdef\x1b[0m\r\n");
  expect(output.every((e) => typeof e[0] === "number")).toBe(true);
});

test("logs: --cast with another flag, --tail with --from and no session are usage errors; an unknown session 4", async () => {
  expect(await s.d.cli(["logs", "l", "--cast", "--raw"])).toMatchObject({
    code: 2,
    stderr: expect.stringContaining("termd logs: --cast goes alone\n"),
  });
  expect((await s.d.cli(["logs", "l", "--tail", "1", "--from", "0"])).stderr).toStartWith("termd logs: give --tail or --from, not both\n");
  expect((await s.d.cli(["logs"])).code).toBe(2);
  expect(await s.d.cli(["logs", "nope"])).toEqual({ code: 4, stdout: "", stderr: 'termd logs: no session "nope"\n' });
});
