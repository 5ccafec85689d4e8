// termd info, run as a user runs it, against a daemon of this file's.
import { expect, test } from "bun:test";
import { sharedDaemon } from "../../../test/harness.ts";

const s = sharedDaemon();

test("info prints one session's fields, aligned under their names, and --json its whole record", async () => {
  await s.c.call("session.create", { name: "i", command: ["sh", "-c", "printf 'ab\\n'; exec sleep 100"], cwd: s.dir, rows: 10, cols: 40 });
  await s.c.call("session.wait", { session: "i", text: "ab" });
  const { code, stdout, stderr } = await s.d.run(["info", "i"]);
  expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
  const info = await s.c.call("session.info", { session: "i" });
  expect(stdout).toStartWith(
    [
      "name:    i",
      `id:      ${info.id}`,
      "state:   running",
      `pid:     ${info.pid}`,
      // Quoted as a shell reads it back (ls shows it so too).
      "command: sh -c 'printf '\\''ab\\n'\\''; exec sleep 100'",
      `cwd:     ${s.dir}`,
      "size:    10x40",
    ].join("\n"),
  );
  expect(stdout).toContain("\noutput:  4 bytes\n");
  expect(JSON.parse((await s.d.run(["info", info.id, "--json"])).stdout)).toEqual(info);
});

test("info of an ended session shows how it ended", async () => {
  await s.c.call("session.create", { name: "gone", command: ["sh", "-c", "exit 3"], cwd: s.dir });
  await s.c.call("session.wait", { session: "gone", exit: true });
  const { stdout } = await s.d.run(["info", "gone"]);
  expect(stdout).toMatch(/^state: {3}failed \(3\)$/m);
  expect(stdout).toMatch(/^ended: {3}\d{4}-/m);
});

test("info: no session named is a usage error (2), an unknown one not found (4)", async () => {
  expect(await s.d.run(["info"])).toMatchObject({ code: 2, stderr: expect.stringContaining("termd info: name the session") });
  expect(await s.d.cli(["info", "nope"])).toEqual({ code: 4, stdout: "", stderr: 'termd info: no session "nope"\n' });
});
