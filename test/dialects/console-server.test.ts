// termd as context-pilot's console server binary: dist/cp-console-server (a link to dist/termd,
// built by `npm test`) run as the console manager's find_or_create_server() runs it — `BINARY
// SOCKET_PATH`, stdio closed, in the project root — and then driven over the socket as it drives it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type Client } from "../../src/client/index.ts";
import { ROOT } from "../harness.ts";
import { Lines } from "../lines.ts";
import { pidExit } from "../pid-exit.ts";
import { alive } from "../../src/platform/alive.ts";

const BIN = join(ROOT, "dist/cp-console-server");
let dir: string;
let project: string;
let consoleDir: string;
let sock: string;
let serverPid = 0;

/** Field 6 of /proc/PID/stat: the process's session id. */
const sessionOf = (pid: number) =>
  Number(
    readFileSync(`/proc/${pid}/stat`, "utf8")
      .replace(/^.*\) /, "")
      .split(" ")[3],
  );

async function gone(pid: number): Promise<void> {
  await pidExit(pid);
  expect(alive(pid)).toBe(false);
}

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error("dist/cp-console-server is missing: run `bun run build` first (npm test does)");
  dir = mkdtempSync(join(tmpdir(), "termd-cpserver-"));
  project = join(dir, "project");
  consoleDir = join(project, ".context-pilot", "console");
  mkdirSync(consoleDir, { recursive: true });
  sock = join(consoleDir, "server.sock");
});

afterAll(() => {
  if (serverPid && alive(serverPid)) process.kill(serverPid, "SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

test("cp-console-server SOCKET_PATH: its own daemon, in its own session, in the caller's directory, with server.pid and its state beside the socket", async () => {
  // The user's default daemon must stay untouched: these paths are never created.
  const userSocket = join(dir, "user", "default.sock");
  const userState = join(dir, "user-state");
  const spawner = Bun.spawn([BIN, sock], {
    cwd: project,
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, TERMD_SOCKET: userSocket, TERMD_STATE_DIR: userState },
  });
  const [code, stderr] = await Promise.all([spawner.exited, new Response(spawner.stderr).text()]);
  expect({ code, stderr }).toEqual({ code: 0, stderr: "" });

  // The console manager's first request, on a connection of its own.
  const c = await Lines.open(sock);
  expect(await c.ask({ cmd: "ping" })).toEqual({ ok: true });

  serverPid = Number(readFileSync(join(consoleDir, "server.pid"), "utf8"));
  expect(serverPid).not.toBe(spawner.pid);
  expect(alive(serverPid)).toBe(true);
  // setsid(), as the real server: a Ctrl-C or hangup in the TUI's terminal does not reach it.
  expect(sessionOf(serverPid)).toBe(serverPid);
  expect(existsSync(join(consoleDir, "server.termd"))).toBe(true);
  expect(existsSync(userSocket) || existsSync(userState)).toBe(false);

  // A create without cwd runs in the directory the server was started in: the project root.
  const log = join(consoleDir, "c_1.log");
  expect(await c.ask({ cmd: "create", key: "c_1", command: "pwd", log_path: log })).toEqual({ ok: true, pid: expect.any(Number) });
  const native: Client = await connect(sock);
  await native.call("session.wait", { session: "c_1", exit: true, timeout_ms: 10_000 });
  expect(readFileSync(log, "utf8")).toContain(project);

  // The document's manual restart: kill $(cat server.pid) ends the server and what it runs, and
  // takes its socket and pid file with it.
  const running = await c.ask({ cmd: "create", key: "c_2", command: "sleep 1000", log_path: join(consoleDir, "c_2.log") });
  expect(running.ok).toBe(true);
  process.kill(serverPid, "SIGTERM");
  await Promise.all([c.closed, native.closed]);
  await gone(serverPid);
  await gone(running.pid);
  expect(existsSync(sock)).toBe(false);
  expect(existsSync(join(consoleDir, "server.pid"))).toBe(false);
});

test("cp-console-server without a socket path: the real server's usage line", async () => {
  const p = Bun.spawn([BIN], { stdio: ["ignore", "pipe", "pipe"] });
  const [code, stdout, stderr] = await Promise.all([p.exited, new Response(p.stdout).text(), new Response(p.stderr).text()]);
  expect({ code, stdout, stderr }).toEqual({ code: 2, stdout: "", stderr: "Usage: cp-console-server <socket_path>\n" });
});
