// termd schema: no daemon needed; run in this process (CliContext's out) and once through the real entry.
import { expect, test } from "bun:test";
import { runInProcess, runProcess, SOURCE_BIN } from "../../../test/harness.ts";
import { COMMANDS } from "../../server/methods.ts";

const run = (args: string[]) => runInProcess(["schema", ...args]);

test("schema prints every native method's params schema, keyed by method", async () => {
  const { code, stdout } = await runProcess([...SOURCE_BIN, "schema"]);
  expect(code).toBe(0);
  const all = JSON.parse(stdout);
  expect(Object.keys(all).sort()).toEqual([...COMMANDS.keys()].sort());
  expect(all["session.create"]).toMatchObject({ $schema: "http://json-schema.org/draft-07/schema#", type: "object" });
});

test("schema METHOD prints that one; an unknown method is a usage error listing them", async () => {
  const one = await run(["session.resize"]);
  expect(one.code).toBe(0);
  expect(JSON.parse(one.stdout)).toMatchObject({ type: "object", required: expect.arrayContaining(["session", "rows", "cols"]) });
  const bad = await run(["session.nope"]);
  expect(bad).toMatchObject({ code: 2, stdout: "" });
  expect(bad.stderr).toStartWith("termd schema: no method session.nope; the methods are: ");
  expect(bad.stderr).toContain("session.create, ");
  expect(await run(["session.resize", "extra"])).toMatchObject({ code: 2, stderr: expect.stringContaining("unexpected argument extra") });
});
