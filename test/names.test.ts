// Hostile session names are refused wherever a name comes in (session.create, the CLI, the console
// dialect's key, MCP's start_session shares the schema): one starting with `-` would read as a
// flag (`termd rm -rf`), `.` and `..` as folders, and `/`, spaces and control characters break
// paths and command lines. Names that merely look odd stay allowed.
import { expect, test } from "bun:test";
import * as v from "valibot";
import startSession from "../src/mcp/tools/start_session.ts";
import { TestDaemon } from "./harness.ts";
import { Lines } from "./lines.ts";

const refused: [name: string, why: string][] = [
  ["-rf", "must not start with '-'"],
  ["-", "must not start with '-'"],
  ["--help", "must not start with '-'"],
  [".", "must not be '.' or '..'"],
  ["..", "must not be '.' or '..'"],
  ["a/b", "1-64 characters of"],
  ["../etc", "1-64 characters of"],
  ["has space", "1-64 characters of"],
  ["tab\there", "1-64 characters of"],
  ["esc\x1b[31m", "1-64 characters of"],
  ["nl\n", "1-64 characters of"],
  ["", "1-64 characters of"],
];

test("session.create refuses hostile names with INVALID_PARAMS that says why, and creates nothing", async () => {
  await using d = await TestDaemon.start();
  const c = await d.client();
  for (const [name, why] of refused) {
    const err = await c.call("session.create", { name, command: ["true"] }).then(
      () => null,
      (e) => e,
    );
    expect({ name, code: err?.name, says: err?.message.includes(why) }).toEqual({ name, code: "INVALID_PARAMS", says: true });
  }
  expect((await c.call("session.list")).sessions).toEqual([]);
  // Odd but harmless names are still names.
  for (const name of ["a-b", "a.b", "..a", "x.", "user@host:1", "c+d", "con", "_"]) {
    expect((await c.call("session.create", { name, command: ["true"] })).name).toBe(name);
  }
});

test("the CLI and the console dialect get the same refusal", async () => {
  await using d = await TestDaemon.start();
  const cli = await d.cli(["start", "--name=-rf", "--", "true"]);
  expect(cli.code).not.toBe(0);
  expect(cli.stderr).toContain("must not start with '-'");
  const c = await Lines.open(d.socket);
  try {
    const reply = await c.ask({ cmd: "create", key: "..", command: "true", log_path: "/dev/null" });
    expect(reply.ok).toBe(false);
    expect(reply.error).toContain("must not be '.' or '..'");
  } finally {
    c.close();
  }
  expect((await (await d.client()).call("session.list")).sessions).toEqual([]);
});

test("MCP's start_session refuses them before it calls the daemon", () => {
  for (const [name, why] of refused) {
    const r = v.safeParse(startSession.params, { name });
    expect({ name, ok: r.success, says: r.issues?.some((i) => i.message.includes(why)) }).toEqual({ name, ok: false, says: true });
  }
  expect(v.safeParse(startSession.params, { name: "a.b" }).success).toBe(true);
});
