// A private daemon per test, or per test file (sharedDaemon): its own temp socket and state dir,
// started as a real process through the CLI (`termd daemon`), reaped on dispose. `bin` picks what
// runs: the source through Bun (default) or the compiled dist/termd.
import { afterAll, beforeAll } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { connect, type Client } from "../src/client/index.ts";
import { daemonArgs, untilListening } from "../scripts/common/daemon-process.ts";

export const ROOT = join(import.meta.dir, "..");
export const SOURCE_BIN = [process.execPath, join(ROOT, "src/cli/main.ts")];
export const DIST_BIN = [join(ROOT, "dist/termd")];

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export class TestDaemon {
  private readonly clients: Client[] = [];
  /** What the daemon has written to stderr, its log, so far (it goes on to the test's stderr too). */
  log = "";
  private readonly logWaiters = new Set<() => void>();

  private constructor(
    readonly dir: string,
    readonly socket: string,
    readonly stateDir: string,
    readonly bin: string[],
    readonly proc: Subprocess<"ignore", "pipe", "pipe">,
    /** What the daemon wrote to stderr up to its "listening" line (an --http daemon's address is there). */
    readonly banner: string,
  ) {}

  /** Environment for anything that should find this daemon and nothing else. */
  get env(): Record<string, string> {
    return { ...(process.env as Record<string, string>), TERMD_SOCKET: this.socket, TERMD_STATE_DIR: this.stateDir };
  }

  /** `socket` and `stateDir` reuse a dead daemon's; by default each daemon gets fresh temp ones. `env` is added to the daemon's. */
  static async start(
    opts: { bin?: string[]; args?: string[]; socket?: string; stateDir?: string; env?: Record<string, string> } = {},
  ): Promise<TestDaemon> {
    const bin = opts.bin ?? SOURCE_BIN;
    const dir = mkdtempSync(join(tmpdir(), "termd-test-"));
    const socket = opts.socket ?? join(dir, "run", "termd.sock");
    const stateDir = opts.stateDir ?? join(dir, "state");
    // The sessions' home (and their default cwd): an empty one, so a shell reads none of the user's
    // rc files. A slow one makes a test wait for it, and one of this machine's (pyenv's rehash)
    // takes a lock a killed shell leaves behind: every shell after it waited 60 s for it.
    const home = join(dir, "home");
    mkdirSync(home);
    const proc = Bun.spawn([...bin, ...daemonArgs(socket, stateDir, opts.args)], {
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
      env: { ...process.env, HOME: home, ...opts.env, TERMD_SOCKET: socket, TERMD_STATE_DIR: stateDir },
    });
    let seen: string;
    try {
      // The daemon says "listening" on stderr once its socket accepts connections.
      const { banner, reader } = await untilListening(proc);
      reader.releaseLock();
      seen = banner;
    } catch (err) {
      rmSync(dir, { recursive: true, force: true });
      throw err;
    }
    const d = new TestDaemon(dir, socket, stateDir, bin, proc, seen);
    d.log = seen;
    const decoder = new TextDecoder();
    const tee = new WritableStream<Uint8Array>({
      write: (c) => {
        d.log += decoder.decode(c, { stream: true });
        for (const check of d.logWaiters) check();
        process.stderr.write(c);
      },
    });
    void proc.stderr.pipeTo(tee).catch(() => {});
    return d;
  }

  /** Resolves once the daemon's log contains `text` (or `text` holds of it); rejects if it has not after `timeoutMs`. */
  logged(text: string | ((log: string) => boolean), timeoutMs = 10_000): Promise<void> {
    const { promise, resolve, reject } = Promise.withResolvers<void>();
    const holds = typeof text === "string" ? (log: string) => log.includes(text) : text;
    const timer = setTimeout(() => {
      this.logWaiters.delete(check);
      reject(new Error(`the daemon's log never said ${typeof text === "string" ? JSON.stringify(text) : text}`));
    }, timeoutMs);
    const check = () => {
      if (!holds(this.log)) return;
      clearTimeout(timer);
      this.logWaiters.delete(check);
      resolve();
    };
    this.logWaiters.add(check);
    check();
    return promise;
  }

  /** A new connection, closed on dispose. */
  async client(): Promise<Client> {
    const c = await connect(this.socket);
    this.clients.push(c);
    return c;
  }

  /**
   * Resolves once the daemon has had `n` more requests than `from` (system.stats' `requests`), not
   * counting the ones this asks: how a test knows that a command it started has made its calls (a
   * command line's first are its `system.ping` and the call it is for).
   */
  async requestsPast(from: number, n: number): Promise<void> {
    const c = await this.client();
    for (let asked = 1; ; asked++) {
      if ((await c.call("system.stats")).requests - asked - from >= n) return;
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  /** Runs `termd ARGS` against this daemon. */
  cli(args: string[], opts: { stdin?: string; env?: Record<string, string> } = {}): Promise<CliResult> {
    return runProcess([...this.bin, ...args], { stdin: opts.stdin, env: { ...this.env, ...opts.env } });
  }

  /** Runs `termd ARGS` on a terminal: as a session of this daemon, reaching it. Resolves to its exit code and the screen it left. */
  async cliOnTerminal(args: string[]): Promise<{ code: number | null; screen: string }> {
    const c = await this.client();
    const { id } = await c.call("session.create", { command: [...this.bin, ...args], env: { TERMD_SOCKET: this.socket }, cols: 300 });
    const { exit_code } = await c.call("session.wait", { session: id, exit: true });
    const { lines } = await c.call("session.screen", { session: id });
    return { code: exit_code ?? null, screen: lines.join("\n").trim() };
  }

  /** Runs the same command line in this process against this daemon: see runInProcess. */
  run(args: string[]): Promise<CliResult> {
    return runInProcess(args, () => connect(this.socket));
  }

  async [Symbol.asyncDispose](): Promise<void> {
    for (const c of this.clients) c.close();
    if (this.proc.exitCode === null) {
      try {
        const c = await connect(this.socket);
        await c.call("system.shutdown", { grace_ms: 500 }).catch(() => {});
        c.close();
      } catch {}
      const killer = setTimeout(() => this.proc.kill("SIGKILL"), 5000);
      await this.proc.exited;
      clearTimeout(killer);
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Runs `argv` (a termd command line: SOURCE_BIN or DIST_BIN and its arguments) to its end; `env` is its whole environment. */
export async function runProcess(
  argv: string[],
  opts: { stdin?: string; env?: Record<string, string | undefined> } = {},
): Promise<CliResult> {
  const p = Bun.spawn(argv, {
    stdin: opts.stdin !== undefined ? new TextEncoder().encode(opts.stdin) : "ignore",
    stdout: "pipe",
    stderr: "pipe",
    env: opts.env ?? process.env,
  });
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, stdout, stderr };
}

/**
 * Runs `termd ARGS` in this process, through runCli (its parsing, errors and exit codes): faster
 * than a process where one adds nothing. Only what a command prints through its context is caught:
 * logs, screenshot to stdout, show-trace, attach and reading standard input need a process. `reach`
 * connects to the daemon (by default there is none); `daemon` here is for its errors: run one with TestDaemon.
 */
export async function runInProcess(
  args: string[],
  reach: (socketPath: string) => Promise<Client> = () => Promise.reject(new Error("runInProcess: no daemon here (TestDaemon.run has one)")),
): Promise<CliResult> {
  const [{ runCli }, { CLIENT_COMMANDS }, daemon, schema] = await Promise.all([
    import("../src/cli/run.ts"),
    import("../src/cli/commands/index.ts"),
    import("../src/cli/commands/daemon.ts"),
    import("../src/cli/commands/schema.ts"),
  ]);
  const commands = {
    ...CLIENT_COMMANDS,
    daemon: () => daemon.daemonCommand(() => import("../src/server/daemon-host.ts")),
    schema: () => schema.default,
  };
  const caught = { stdout: "", stderr: "" };
  const io = { out: (s: string) => (caught.stdout += s), err: (s: string) => (caught.stderr += s) };
  const code = await runCli(args, { commands, connect: reach, io });
  return { code, ...caught };
}

/** The daemon a test file shares: `d`, a client `c` on it, and `dir`, a work folder removed with it. */
export interface SharedDaemon {
  readonly d: TestDaemon;
  readonly c: Client;
  readonly dir: string;
}

/** One daemon for the whole file: started (with a client and a work folder) before its tests, disposed after them. */
export function sharedDaemon(opts: Parameters<typeof TestDaemon.start>[0] = {}): SharedDaemon {
  let d: TestDaemon | undefined;
  let c: Client | undefined;
  beforeAll(async () => {
    d = await TestDaemon.start(opts);
    c = await d.client();
    mkdirSync(join(d.dir, "work"));
  });
  afterAll(async () => {
    await d?.[Symbol.asyncDispose]();
  });
  const started = () => d ?? raise("sharedDaemon: the daemon starts in beforeAll; read it inside a test or hook");
  return {
    get d() {
      return started();
    },
    get c() {
      return c ?? raise("sharedDaemon: no client before beforeAll");
    },
    get dir() {
      return join(started().dir, "work");
    },
  };
}

function raise(message: string): never {
  throw new Error(message);
}
