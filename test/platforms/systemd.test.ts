// systemd socket activation, with Debian's systemd-socket-activate standing in for systemd: it
// binds the socket, and on the first connection execs `termd daemon` with the socket as fd 3
// (LISTEN_FDS, LISTEN_PID). And a daemon systemd starts and one an autostarting CLI starts at the
// same moment end with exactly one serving; the other exits saying why.
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { readFileSync } from "node:fs";
import { connect } from "../../src/client/index.ts";
import { ROOT, SOURCE_BIN } from "../harness.ts";

const activator = Bun.which("systemd-socket-activate");
if (!activator) console.warn("skipping the socket activation tests: no systemd-socket-activate (Debian: apt-get install systemd)");

interface Activated {
  proc: Bun.Subprocess<"ignore", "ignore", "pipe">;
  /** Its stderr (systemd-socket-activate's, then the daemon's), whole once it exited. */
  log: Promise<string>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** systemd-socket-activate listening on `listen`, to exec `termd daemon ARGS` on the first connection. */
async function activate(dir: string, listen: string, args: string[], options: string[] = []): Promise<Activated> {
  const proc = Bun.spawn([activator!, "-l", listen, ...options, ...SOURCE_BIN, "daemon", ...args], {
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
  });
  const [mine, rest] = proc.stderr.tee();
  const log = new Response(rest).text();
  // It says "Listening on PATH as 3." once the socket is bound.
  const reader = mine.getReader();
  let seen = "";
  while (!seen.includes("Listening on")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`systemd-socket-activate did not listen: ${seen}`);
    seen += new TextDecoder().decode(value);
  }
  void reader.cancel();
  return {
    proc,
    log,
    async [Symbol.asyncDispose]() {
      proc.kill("SIGKILL");
      await proc.exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function tempDir(): { dir: string; socket: string; state: string } {
  const dir = mkdtempSync(join(tmpdir(), "termd-sd-"));
  return { dir, socket: join(dir, "termd.sock"), state: join(dir, "state") };
}

/** A setting of one of contrib/systemd's units, with the specifiers %t, %U and %h expanded as systemd --user would. */
function unitSetting(unit: string, key: string, home: string, runtimeDir: string): string {
  const text = readFileSync(join(ROOT, "contrib/systemd", unit), "utf8");
  const value = new RegExp(`^${key}=(.*)$`, "m").exec(text)?.[1];
  if (value === undefined) throw new Error(`${unit} has no ${key}=`);
  return value.replaceAll("%t", runtimeDir).replaceAll("%U", String(process.getuid!())).replaceAll("%h", home);
}

test.skipIf(!activator)(
  "the user units: systemd's socket on fd 3 is the daemon's default socket, served, and left to systemd",
  async () => {
    const { dir, state } = tempDir();
    const runtimeDir = join(dir, "run");
    const socket = unitSetting("termd.socket", "ListenStream", dir, runtimeDir);
    const [bin, ...args] = unitSetting("termd.service", "ExecStart", dir, runtimeDir).split(" ");
    expect(bin).toBe(join(dir, ".local/bin/termd"));
    // What systemd does for the socket unit (DirectoryMode=0700), then for the service: ExecStart
    // with the termd being tested, in the environment of a user's manager (XDG_RUNTIME_DIR).
    mkdirSync(dirname(socket), { recursive: true, mode: 0o700 });
    await using sd = await activate(dir, socket, [...args.slice(1), "--state-dir", state], ["-E", `XDG_RUNTIME_DIR=${runtimeDir}`]);
    // A CLI finds the socket answering, so it starts no daemon of its own: its connection starts systemd's.
    const cli = Bun.spawn([...SOURCE_BIN, "ls"], {
      env: { ...process.env, XDG_RUNTIME_DIR: runtimeDir, TERMD_SOCKET: "", TERMD_STATE_DIR: state },
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(await cli.exited).toBe(0);
    expect(existsSync(join(state, "daemon.log"))).toBe(false); // what an autostart would have written
    const c = await connect(socket);
    // systemd-socket-activate execs the daemon in its own process.
    expect((await c.call("system.ping")).pid).toBe(sd.proc.pid);
    // Its sessions see neither LISTEN_FDS nor LISTEN_PID, and are told the socket.
    const s = await c.call("session.create", { command: ["sh", "-c", 'echo "fds=$LISTEN_FDS pid=$LISTEN_PID socket=$TERMD_SOCKET"'] });
    const w = await c.call("session.wait", { session: s.id, exit: true });
    expect(w.screen.lines[0]).toBe(`fds= pid= socket=${socket}`);
    await c.call("system.shutdown", { grace_ms: 500 });
    c.close();
    expect(await sd.proc.exited).toBe(0);
    expect(await sd.log).toContain(`listening on ${socket} (systemd's socket, fd 3)`);
    expect(existsSync(socket)).toBe(true);
  },
  60_000,
);

test.skipIf(!activator)(
  "a socket systemd bound elsewhere is refused with both paths named",
  async () => {
    const { dir, socket, state } = tempDir();
    const elsewhere = join(dir, "other.sock");
    await using sd = await activate(dir, elsewhere, ["--socket", socket, "--state-dir", state]);
    await connect(elsewhere).catch(() => {}); // the first connection execs the daemon
    expect(await sd.proc.exited).toBe(1);
    expect(await sd.log).toContain(`systemd's socket (fd 3) is bound to ${elsewhere}, but this daemon's socket is ${socket}`);
  },
  60_000,
);

test.skipIf(!activator)(
  "systemd's daemon and an autostarted one starting at once: exactly one serves, the other says why",
  async () => {
    for (let round = 0; round < 6; round++) {
      const { dir, socket, state } = tempDir();
      await using sd = await activate(dir, socket, ["--socket", socket, "--state-dir", state]);
      // What an autostarting CLI runs, at the same moment as the first connection to systemd's socket.
      const autostarted = Bun.spawn([...SOURCE_BIN, "daemon", "--socket", socket, "--state-dir", state], {
        stdin: "ignore",
        stdout: "ignore",
        stderr: "pipe",
      });
      const first = connect(socket);
      const [code, why] = await Promise.all([autostarted.exited, new Response(autostarted.stderr).text()]);
      // 5: it lost the lock to systemd's daemon; 1: it won it, then found systemd's socket answering.
      expect([1, 5]).toContain(code);
      expect(why).toMatch(/a termd daemon (\(pid \d+\) already runs|already answers) on /);
      const c = await first;
      expect((await c.call("system.ping")).pid).toBe(sd.proc.pid);
      expect(sd.proc.exitCode).toBeNull();
      await c.call("system.shutdown", { grace_ms: 500 });
      c.close();
      expect(await sd.proc.exited).toBe(0);
    }
  },
  120_000,
);
