import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { daemonParts } from "../../test/unit-fixtures.ts";
import type { SessionRecord } from "./record.ts";
import { SessionStore } from "./store.ts";

const dir = mkdtempSync(join(tmpdir(), "termd-store-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const { timers, pool, ptys } = daemonParts();

test("a cwd that is no directory fails the create with SPAWN_FAILED, and leaves no session", async () => {
  const store = new SessionStore({ stateDir: dir, baseEnv: { PATH: process.env.PATH ?? "/usr/bin:/bin" }, timers, pool, ptys });
  await expect(store.create({ command: ["true"], cwd: join(dir, "nowhere") })).rejects.toMatchObject({
    code: "SPAWN_FAILED",
    message: `cwd ${join(dir, "nowhere")} is not a directory`,
  });
  expect(store.list()).toEqual([]);
});

test("records come back as sessions, a running one as lost, and are saved again once that changed", () => {
  const saved: SessionRecord[] = [];
  const record: SessionRecord = {
    id: "r1",
    name: "old",
    command: ["sh"],
    cwd: dir,
    pid: null,
    state: "running",
    exit_code: null,
    signal: null,
    error: null,
    created_at: new Date().toISOString(),
    ended_at: null,
    rows: 3,
    cols: 10,
    scrollback: 5,
    term: "xterm-256color",
    start_env: { A: "1" },
    integrate: false,
  };
  const store = new SessionStore({
    stateDir: dir,
    baseEnv: {},
    timers,
    pool,
    ptys,
    records: { save: (r) => saved.push(r), delete: () => {}, all: () => [record] },
  });
  store.restore();
  const s = store.get("old");
  expect(s.state).toBe("lost");
  expect(saved).toHaveLength(1);
  expect(saved[0]).toMatchObject({
    id: "r1",
    state: "lost",
    start_env: { A: "1" },
    integrate: false,
    error: "the daemon ended while the program ran",
  });
  expect(store.remove(s)).toBe(true);
  expect(existsSync(s.stream.logPath)).toBe(false);
});
