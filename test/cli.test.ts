// The command line, end to end, run twice: from source through Bun and as the compiled
// dist/termd (built by `npm test` before the suite runs).
import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DIST_BIN, ROOT, SOURCE_BIN, TestDaemon } from "./harness.ts";
import { hostTargetName } from "../src/package/targets.ts";

const BINS: [string, string[]][] = [
  ["source", SOURCE_BIN],
  ["dist/termd", DIST_BIN],
];

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "termd-cli-"));
}

describe.each(BINS)("termd CLI (%s)", (_label, bin) => {
  if (bin === DIST_BIN && !existsSync(DIST_BIN[0]!)) throw new Error("dist/termd is missing: run `bun run build` first (npm test does)");

  test("errors speak the command line's language: flags, not the protocol's field names", async () => {
    await using d = await TestDaemon.start({ bin });
    const rows = await d.cli(["start", "--rows", "0", "--", "true"]);
    expect({ code: rows.code, err: rows.stderr.trim() }).toEqual({ code: 2, err: "termd start: --rows must be at least 1 (got 0)" });
    await d.cli(["start", "--name", "w", "--", "sleep", "100"]);
    const settle = await d.cli(["wait", "w", "--settle", "0"]);
    expect(settle.stderr.trim()).toBe("termd wait: --settle must be at least 1 (got 0)");
    expect((await d.cli(["start", "--cols", "5000", "--", "true"])).stderr).toContain("--cols must be at most 1000 (got 5000)");
  });

  test("start --replace frees a name an ended session holds, and never a running one's", async () => {
    await using d = await TestDaemon.start({ bin });
    expect((await d.cli(["start", "--name", "job", "--", "true"])).code).toBe(0);
    expect((await d.cli(["wait", "job", "--exit"])).code).toBe(0);
    const taken = await d.cli(["start", "--name", "job", "--", "sleep", "100"]);
    expect(taken.code).not.toBe(0);
    expect(taken.stderr).toContain("--replace");
    expect((await d.cli(["start", "--name", "job", "--replace", "--", "sleep", "100"])).stdout).toBe("job\n");
    expect((await d.cli(["start", "--name", "job", "--replace", "--", "true"])).code).not.toBe(0);
    expect((await d.cli(["info", "job"])).stdout).toContain("sleep 100");
  });

  test("a closed stdout ends logs at once and quietly (logs | head -1), as it does other Unix tools", async () => {
    await using d = await TestDaemon.start({ bin });
    const c = await d.client();
    await c.call("session.create", { name: "many", command: ["seq", "1", "200000"] });
    await c.call("session.wait", { session: "many", exit: true });
    const cmd = bin.map((a) => `'${a}'`).join(" ");
    for (const args of ["logs many", "logs many --raw", "logs many --tail 100000", "logs many --cast"]) {
      const p = Bun.spawn(["bash", "-c", `${cmd} ${args} | head -1 >/dev/null; echo "rc=\${PIPESTATUS[0]}"`], {
        env: d.env,
        stdout: "pipe",
        stderr: "pipe",
      });
      const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
      expect({ args, out: out.trim(), err }).toEqual({ args, out: "rc=0", err: "" });
    }
  });

  test("vim edits and saves a file through start, send, wait and ls", async () => {
    await using d = await TestDaemon.start({ bin });
    const dir = tempDir();
    const file = join(dir, "notes.txt");
    try {
      expect((await d.cli(["start", "--name", "ed", "--", "vim", "--clean", file])).stdout.trim()).toBe("ed");
      expect((await d.cli(["wait", "ed", "--text", "notes.txt"])).code).toBe(0);
      const sent = await d.cli(["send", "ed", "--keys", "i", "--text", "hello", "--keys", "Escape", "--text", ":wq", "--keys", "Enter"]);
      expect(sent).toMatchObject({ code: 0, stderr: "" });
      const waited = await d.cli(["wait", "ed", "--exit"]);
      expect(waited).toMatchObject({ code: 0, stdout: "exited (code 0)\n" });
      expect(readFileSync(file, "utf8")).toBe("hello\n");
      const ls = await d.cli(["ls"]);
      expect(ls.stdout).toMatch(/^NAME\s+ID\s+STATE/);
      expect(ls.stdout).toMatch(/\ned\s+\w+\s+exited \(0\)/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("send delivers --text, --keys and --paste in the order given", async () => {
    await using d = await TestDaemon.start({ bin });
    await d.cli(["start", "--name", "sh", "--env", "PS1=$ ", "--", "bash", "--norc", "--noprofile"]);
    await d.cli([
      "send",
      "sh",
      "--text",
      "echo ",
      "--paste",
      "one",
      "--text",
      "-two",
      "--keys",
      "Space",
      "--text",
      "three",
      "--keys",
      "Enter",
    ]);
    const w = await d.cli(["wait", "sh", "--regex", "^one-two three$", "--screen"]);
    expect(w.code).toBe(0);
    expect(w.stdout).toStartWith("matched at ");
  });

  test("send ignores global flags among its input and types nothing when a key token is bad", async () => {
    await using d = await TestDaemon.start({ bin });
    await d.cli(["start", "--name", "s", "--", "cat"]);
    expect((await d.cli(["send", "s", "--text", "one ", "--json", "--socket", d.socket, "--text", "two"])).stdout).toContain('"bytes": 7');
    await d.cli(["wait", "s", "--text", "one two"]);
    const bad = await d.cli(["send", "s", "--text", "three", "--keys", "hello Enter"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"hello"');
    await d.cli(["send", "s", "--keys", "Enter", "--text", "four", "--keys", "Enter"]);
    const w = await d.cli(["wait", "s", "--regex", "^four$", "--json"]);
    expect(JSON.parse(w.stdout).screen.lines.join("\n")).not.toContain("three");
  });

  test("--json prints machine-readable results", async () => {
    await using d = await TestDaemon.start({ bin });
    const started = JSON.parse((await d.cli(["start", "--json", "--name", "j", "--", "bash", "-c", "echo ok; sleep 30"])).stdout);
    expect(started).toMatchObject({ name: "j", state: "running", size: { rows: 24, cols: 80 } });
    const w = JSON.parse((await d.cli(["wait", "j", "--text", "ok", "--json"])).stdout);
    expect(w).toMatchObject({ outcome: "matched", match: { row: 0, col: 0, text: "ok" } });
    const screen = JSON.parse((await d.cli(["screen", "j", "--json"])).stdout);
    expect(screen.lines[0]).toBe("ok");
    expect(screen.hash).toMatch(/^[0-9a-f]{16}$/);
    const list = JSON.parse((await d.cli(["ls", "--json"])).stdout);
    expect(list.map((s: { name: string }) => s.name)).toEqual(["j"]);
    const stopped = JSON.parse((await d.cli(["stop", "j", "--grace", "200", "--json"])).stdout);
    expect(stopped.state).toBe("stopped");
  });

  test("exit codes: 2 for usage, 3 for a timeout, 4 for an unknown session", async () => {
    await using d = await TestDaemon.start({ bin });
    await d.cli(["start", "--name", "c", "--", "cat"]);
    expect((await d.cli(["send", "c", "--bogus"])).code).toBe(2);
    expect((await d.cli(["resize", "c", "x", "y"])).code).toBe(2);
    expect((await d.cli(["nonsense"])).code).toBe(2);
    // Extra arguments are refused, not ignored.
    expect(await d.cli(["ls", "extra"])).toMatchObject({ code: 2, stderr: expect.stringContaining("unexpected argument extra") });
    expect(await d.cli(["daemon", "status", "extra"])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("unexpected argument extra"),
    });
    expect(await d.cli(["info", "c", "extra"])).toMatchObject({ code: 2, stderr: expect.stringContaining("unexpected argument extra") });
    expect((await d.cli(["send", "c", "--keys", "NoSuchKey"])).stderr).toContain("NoSuchKey");
    expect(await d.cli(["wait", "c", "--text", "never", "--timeout", "50"])).toMatchObject({ code: 3, stdout: "timeout\n" });
    const missing = await d.cli(["info", "nope"]);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain('no session "nope"');
  });

  test("every command has --help, and --version says which build it is", async () => {
    await using d = await TestDaemon.start({ bin });
    const version = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version;
    const head = Bun.spawnSync(["git", "rev-parse", "HEAD"], { cwd: ROOT }).stdout.toString().trim();
    const [asJson, plain, extra] = await Promise.all([d.cli(["--version", "--json"]), d.cli(["--version"]), d.cli(["--version", "extra"])]);
    const json = JSON.parse(asJson.stdout);
    // The compiled binary has its commit and target baked in; the source says it is the source.
    const compiled = bin === DIST_BIN;
    const [commit, target] = compiled ? [expect.stringMatching(new RegExp(`^${head}(\\+dirty)?$`)), hostTargetName()] : ["dev", "source"];
    expect(json).toEqual({ version, commit, target, bun: Bun.version });
    const shown = compiled ? `${head.slice(0, 12)}${json.commit.slice(40)}` : "dev";
    expect(plain.stdout).toBe(`termd ${version} (commit ${shown}, ${target}, bun ${Bun.version})\n`);
    expect(extra).toMatchObject({ code: 2, stderr: expect.stringContaining("unexpected argument extra") });
    const overview = await d.cli(["--help"]);
    const names = ["start", "ls", "info", "send", "screen", "wait", "resize", "signal", "stop", "rm", "logs", "daemon"];
    for (const n of names) {
      expect(overview.stdout).toContain(`  ${n} `);
      const h = await d.cli([n, "--help"]);
      expect(h.code).toBe(0);
      expect(h.stdout).toStartWith(`usage: termd ${n}`);
    }
  });

  test("signal, resize, screen, info, logs and rm work on a live session", async () => {
    await using d = await TestDaemon.start({ bin });
    await d.cli(["start", "--name", "b", "--env", "PS1=$ ", "--", "bash", "--norc", "--noprofile"]);
    expect((await d.cli(["resize", "b", "30", "100"])).code).toBe(0);
    await d.cli(["send", "b", "--text", "stty size; printf '\\e[31mred\\e[0m\\n'", "--keys", "Enter"]);
    expect((await d.cli(["wait", "b", "--text", "30 100"])).code).toBe(0);
    await d.cli(["wait", "b", "--regex", "^red$"]);
    expect((await d.cli(["screen", "b", "--ansi"])).stdout).toMatch(/\x1b\[31mred/);
    expect((await d.cli(["info", "b"])).stdout).toMatch(/size:\s+30x100/);
    // Input larger than an argument holds comes from standard input or a file.
    const big = "x".repeat(300 * 1024);
    const file = join(tempDir(), "input.txt");
    writeFileSync(file, `echo from-file-${big.length}\n`);
    expect((await d.cli(["send", "b", "--file", file])).code).toBe(0);
    expect((await d.cli(["wait", "b", "--text", `from-file-${big.length}`])).code).toBe(0);
    expect((await d.cli(["send", "b", "--text", "-"], { stdin: `echo \${#X} from-stdin\n` })).code).toBe(0);
    expect((await d.cli(["wait", "b", "--text", "0 from-stdin"])).code).toBe(0);
    const piped = await d.cli(["send", "b", "--paste", "-", "--json"], { stdin: big });
    expect(JSON.parse(piped.stdout).bytes).toBeGreaterThanOrEqual(big.length);
    expect((await d.cli(["send", "b", "--file", join(tempDir(), "missing")])).code).toBe(2);
    // The size as the README writes it, one word; anything more is refused.
    expect((await d.cli(["resize", "b", "28x90"])).code).toBe(0);
    expect((await d.cli(["info", "b"])).stdout).toMatch(/size:\s+28x90/);
    expect((await d.cli(["resize", "b", "28x90", "extra"])).code).toBe(2);
    expect((await d.cli(["resize", "b", "0x90"])).code).toBe(2);
    await d.cli(["send", "b", "--text", "sleep 100", "--keys", "Enter"]);
    await d.cli(["wait", "b", "--settle", "100"]);
    expect((await d.cli(["signal", "b", "KILL"])).code).toBe(0);
    expect((await d.cli(["wait", "b", "--exit"])).stdout).toBe("exited (signal SIGKILL)\n");
    expect((await d.cli(["info", "b"])).stdout).toMatch(/state:\s+killed \(SIGKILL\)/);
    expect((await d.cli(["logs", "b", "--raw"])).stdout).toContain("\x1b[31mred\x1b[0m\r\n");
    const text = (await d.cli(["logs", "b"])).stdout;
    expect(text).toContain("\nred\n");
    expect(text).not.toContain("\x1b");
    expect((await d.cli(["rm", "b"])).code).toBe(0);
    expect((await d.cli(["info", "b"])).code).toBe(4);
  });

  test("logs --tail prints the last lines, as text or raw", async () => {
    await using d = await TestDaemon.start({ bin });
    await d.cli(["start", "--name", "t", "--", "bash", "-c", "for i in 1 2 3 4 5; do printf '\\e[1mrow %d\\e[0m\\n' $i; done"]);
    await d.cli(["wait", "t", "--exit"]);
    expect((await d.cli(["logs", "t", "--tail", "2"])).stdout).toBe("row 4\nrow 5\n");
    expect((await d.cli(["logs", "t", "--tail", "1", "--raw"])).stdout).toBe("\x1b[1mrow 5\x1b[0m\r\n");
    expect((await d.cli(["logs", "t", "--tail", "1", "--from", "0"])).code).toBe(2);
  });

  test("logs as text applies the line edits a terminal applies: bash's redraw of a pasted command shows it once", async () => {
    await using d = await TestDaemon.start({ bin });
    // A home of its own: bash with its defaults (bracketed paste on), none of the machine's rc files.
    await d.cli(["start", "--name", "p", "--env", `HOME=${tempDir()}`, "--", "bash", "--noprofile"]);
    await d.cli(["wait", "p", "--regex", "[#$] $"]);
    await d.cli(["send", "p", "--paste", "echo hi-$((1+1))"]);
    await d.cli(["wait", "p", "--text", "echo hi-$((1+1))"]);
    await d.cli(["send", "p", "--keys", "Enter"]);
    await d.cli(["wait", "p", "--regex", "^hi-2$"]);
    expect((await d.cli(["logs", "p", "--raw"])).stdout).toContain("\x1b[?2004h");
    const lines = (await d.cli(["logs", "p"])).stdout.split("\n");
    const typed = lines.filter((l) => l.includes("echo hi-"));
    expect(typed).toHaveLength(1);
    expect(typed[0]).toMatch(/[#$] echo hi-\$\(\(1\+1\)\)$/);
    expect(lines[lines.indexOf(typed[0]!) + 1]).toBe("hi-2");
  });

  test("logs --follow streams output until the session ends", async () => {
    await using d = await TestDaemon.start({ bin });
    await d.cli(["start", "--name", "f", "--", "bash", "-c", "read x; echo got-$x; exit 0"]);
    const follow = d.cli(["logs", "f", "--follow"]);
    await d.cli(["wait", "f", "--settle", "50"]);
    await d.cli(["send", "f", "--text", "ping", "--keys", "Enter"]);
    const r = await follow;
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("ping\ngot-ping\n");
  });

  test("a command autostarts the daemon; daemon status and stop manage it", async () => {
    const dir = tempDir();
    const env = { TERMD_SOCKET: join(dir, "sock", "auto.sock"), TERMD_STATE_DIR: join(dir, "state") };
    const run = async (args: string[]) => {
      const p = Bun.spawn([...bin, ...args], { env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
      const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
      return { stdout, stderr, code };
    };
    try {
      expect((await run(["daemon", "status"])).code).toBe(1);
      expect(await run(["start", "--name", "auto", "--", "cat"])).toMatchObject({ code: 0, stdout: "auto\n" });
      const status = await run(["daemon", "status", "--json"]);
      expect(JSON.parse(status.stdout)).toMatchObject({ sessions: 1, running: 1, socket: env.TERMD_SOCKET });
      expect(statSync(env.TERMD_SOCKET).mode & 0o777).toBe(0o600);
      expect(statSync(join(dir, "sock")).mode & 0o777).toBe(0o700);
      expect((await run(["daemon", "stop"])).code).toBe(0);
      expect((await run(["daemon", "status"])).code).toBe(1);
      expect(existsSync(env.TERMD_SOCKET)).toBe(false);
    } finally {
      await run(["daemon", "stop"]);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a second daemon refuses a live socket, and a dead daemon's stale socket is replaced", async () => {
    await using d = await TestDaemon.start({ bin });
    const second = await d.cli(["daemon", "--socket", d.socket, "--state-dir", d.stateDir]);
    expect(second.code).toBe(5);
    expect(second.stderr).toContain("already");
    d.proc.kill("SIGKILL");
    await d.proc.exited;
    expect(existsSync(d.socket)).toBe(true);
    await using again = await TestDaemon.start({ bin, socket: d.socket });
    const c = await again.client();
    expect((await c.call("system.ping")).pid).toBe(again.proc.pid);
  });
});

test("the Node client stub drives a running daemon with no node_modules", async () => {
  const stub = join(ROOT, "dist", "termd-client.mjs");
  await using d = await TestDaemon.start();
  const dir = tempDir();
  try {
    // A copy outside the repository proves it needs nothing beside it.
    writeFileSync(join(dir, "termd-client.mjs"), readFileSync(stub));
    const node = Bun.which("node");
    if (!node) throw new Error("node is not on PATH");
    const run = async (args: string[]) => {
      const p = Bun.spawn([node, join(dir, "termd-client.mjs"), ...args], { env: d.env, cwd: dir, stdout: "pipe", stderr: "pipe" });
      const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
      return { stdout, stderr, code };
    };
    expect((await run(["start", "--name", "n", "--", "bash", "-c", "echo from-node; sleep 30"])).stdout).toBe("n\n");
    expect((await run(["wait", "n", "--text", "from-node"])).code).toBe(0);
    expect((await run(["ls"])).stdout).toContain("running");
    expect((await run(["stop", "n", "--grace", "100"])).stdout).toBe("stopped (SIGHUP)\n");
    // Its help offers what it can do: it cannot host a daemon.
    const help = (await run(["--help"])).stdout;
    expect(help).toContain("stop or query the running daemon");
    expect((await run(["daemon", "--help"])).stdout).not.toContain("--state-dir");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the compiled termd reads no .env or bunfig.toml from the folder it runs in", async () => {
  await using d = await TestDaemon.start({ bin: DIST_BIN });
  const dir = tempDir();
  try {
    const ls = async () => {
      const p = Bun.spawn([...DIST_BIN, "ls"], { cwd: dir, env: d.env, stdout: "pipe", stderr: "pipe" });
      const [stderr, code] = await Promise.all([new Response(p.stderr).text(), p.exited]);
      return { code, stderr };
    };
    // (Bun's executables read both by default: the .env would send the command to nothing at port 9.)
    writeFileSync(join(dir, ".env"), "TERMD_URL=http://127.0.0.1:9\n");
    expect(await ls()).toEqual({ code: 0, stderr: "" });
    writeFileSync(join(dir, "bunfig.toml"), "this is = not toml [\n");
    expect(await ls()).toEqual({ code: 0, stderr: "" });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
