// The handover's way out when something fails after its farewell started: the daemon serves on.
import { afterEach, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUILD } from "../protocol/version.ts";
import { type HandoverHost, handOver } from "./handover.ts";
import { handoverPath } from "./handover-record.ts";

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test("a throw past the hold (here the timers' flush) undoes the farewell and releases the pty workers", async () => {
  dir = mkdtempSync(join(tmpdir(), "termd-handover-"));
  let released = 0;
  const host: HandoverHost = {
    // Standard input stands for the listening socket: the record is written, and nothing is exec'd.
    options: { socketPath: join(dir, "termd.sock"), stateDir: dir, listenFd: 0 },
    store: { list: () => [] },
    ptys: { hold: async () => ({ exits: [], input: [] }), release: () => void released++, leftovers: { killAll: () => {} } },
    connections: [],
    farewell: null,
    httpPort: null,
    lockFiles: () => [],
    sessionSocketList: () => [],
    timers: {
      flush: () => {
        throw new Error("flush failed");
      },
    },
  };
  // Regression: the throw left the farewell set (every request refused) and the workers held for good.
  await handOver(host, { argv: [join(dir, "never-run")], to: BUILD, sessions: 0 });
  expect(host.farewell).toBeNull();
  expect(released).toBe(1);
  expect(existsSync(handoverPath(dir))).toBe(false);
});
