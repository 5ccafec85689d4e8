// termd schema: every native method's params as JSON Schema, from the daemon's own schemas.
import { expect, test } from "bun:test";
import { COMMANDS } from "../../src/daemon/commands/index.ts";
import { TestDaemon } from "../harness.ts";

test("termd schema prints a JSON Schema for every native method, and one method's alone", async () => {
  await using d = await TestDaemon.start();
  const all = await d.cli(["schema"]);
  expect(all.code).toBe(0);
  const schemas = JSON.parse(all.stdout) as Record<string, { type: string; properties: Record<string, unknown>; required?: string[] }>;
  expect(Object.keys(schemas).sort()).toEqual([...COMMANDS.keys()].sort());
  expect(schemas["session.input"]!.required).toEqual(["session"]);
  expect(Object.keys(schemas["session.screen"]!.properties)).toContain("since_seq");
  expect(schemas["exec.run"]!.required).toEqual(["session", "command"]);
  const one = await d.cli(["schema", "session.wait"]);
  expect(JSON.parse(one.stdout)).toEqual(schemas["session.wait"]);
  const unknown = await d.cli(["schema", "session.nope"]);
  expect(unknown.code).toBe(2);
  expect(unknown.stderr).toContain("session.wait");
});
