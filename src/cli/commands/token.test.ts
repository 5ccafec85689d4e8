// termd token: no daemon needed, only a state dir; run through the real entry (it reads the environment).
import { expect, test } from "bun:test";
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runProcess, SOURCE_BIN, type CliResult } from "../../../test/harness.ts";

const token = (args: string[], env: Record<string, string> = {}): Promise<CliResult> =>
  runProcess([...SOURCE_BIN, "token", ...args], { env: { ...process.env, TERMD_TOKEN: "", ...env } });

test("token generates the state dir's token (0600) once, prints it every time, and tightens a loosened file", async () => {
  const dir = mkdtempSync(join(tmpdir(), "termd-token-"));
  try {
    const state = join(dir, "state");
    const first = await token(["--state-dir", state]);
    expect(first).toMatchObject({ code: 0, stderr: "" });
    expect(first.stdout).toMatch(/^[\w-]{43}\n$/);
    expect(readFileSync(join(state, "http-token"), "utf8")).toBe(first.stdout);
    chmodSync(join(state, "http-token"), 0o644);
    // $TERMD_STATE_DIR is the default state dir.
    expect(await token([], { TERMD_STATE_DIR: state })).toEqual(first);
    expect(statSync(join(state, "http-token")).mode & 0o777).toBe(0o600);
    // An empty file is no token: the message says what to do.
    writeFileSync(join(state, "http-token"), "\n");
    expect(await token(["--state-dir", state])).toMatchObject({
      code: 1,
      stderr: expect.stringContaining("delete it to have a new token generated"),
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("token prints $TERMD_TOKEN when it is set, and takes no arguments", async () => {
  expect(await token(["--state-dir", "/nonexistent"], { TERMD_TOKEN: "from-env" })).toEqual({ code: 0, stdout: "from-env\n", stderr: "" });
  expect(await token(["extra"], { TERMD_TOKEN: "from-env" })).toMatchObject({
    code: 2,
    stderr: expect.stringContaining("unexpected argument extra"),
  });
});
