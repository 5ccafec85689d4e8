// termd ls, run as a user runs it, against a daemon of this file's.
import { expect, test } from "bun:test";
import { sharedDaemon } from "../../../test/harness.ts";

const s = sharedDaemon();

test("ls with no sessions says so; --json is an empty list", async () => {
  expect(await s.d.cli(["ls"])).toEqual({ code: 0, stdout: "no sessions\n", stderr: "" });
  expect(JSON.parse((await s.d.run(["ls", "--json"])).stdout)).toEqual([]);
});

test("ls prints a table: a header, then a row per session with its state, pid, owner, size and command", async () => {
  const a = await s.c.call("session.create", { name: "a", command: ["sleep", "100"], cwd: s.dir, rows: 5, cols: 30 });
  const b = await s.c.call("session.create", { name: "bee", command: ["true"], cwd: s.dir, meta: { owner: "mcp:claude" } });
  await s.c.call("session.wait", { session: "bee", exit: true });
  const { code, stdout } = await s.d.run(["ls"]);
  expect(code).toBe(0);
  const rows = stdout.trimEnd().split("\n");
  expect(rows[0]!.split(/ {2,}/)).toEqual(["NAME", "ID", "STATE", "PID", "OWNER", "SIZE", "COMMAND"]);
  // Aligned: each column starts where its header does.
  expect([rows[1]!.indexOf("running"), rows[2]!.indexOf("mcp:claude")]).toEqual([rows[0]!.indexOf("STATE"), rows[0]!.indexOf("OWNER")]);
  expect(rows.slice(1).map((r) => r.split(/ {2,}/))).toEqual([
    ["a", a.id, "running", String(a.pid), "-", "5x30", "sleep 100"],
    ["bee", b.id, "exited (0)", String(b.pid), "mcp:claude", "24x80", "true"],
  ]);
  const listed = JSON.parse((await s.d.run(["ls", "--json"])).stdout);
  expect(listed).toEqual((await s.c.call("session.list")).sessions);
});

test("ls takes no arguments", async () => {
  expect(await s.d.run(["ls", "a"])).toMatchObject({
    code: 2,
    stderr: expect.stringContaining("termd ls: unexpected argument a\nusage: termd ls"),
  });
});

test("ls and info show the command as a shell would take it back: words quoted where a space, a quote or an empty word needs it", async () => {
  const argv = ["sh", "-c", "sleep 100; echo 'done'", "my name", ""];
  await s.c.call("session.create", { name: "quoted", command: argv, cwd: s.dir });
  const line = `sh -c 'sleep 100; echo '\\''done'\\''' 'my name' ''`;
  const ls = await s.d.run(["ls"]);
  expect(ls.stdout).toContain(`  ${line}\n`);
  expect((await s.d.run(["info", "quoted"])).stdout).toContain(`command: ${line}\n`);
  // A shell splits it back into the same argv.
  const back = Bun.spawnSync(["sh", "-c", `printf '%s\\n' ${line.slice("sh -c ".length)}`]).stdout.toString();
  expect(back).toBe(`${argv.slice(2).join("\n")}\n`);
});
