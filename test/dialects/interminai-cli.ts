// What the interminai tests share: running the personality's command line against a test's
// daemon or in the foreground, speaking a session socket raw, a relay that shows a request
// unanswered, and finding and watching (natively) the session behind an interminai socket.
import { expect } from "bun:test";
import { connect, createServer, type Socket } from "node:net";
import { join } from "node:path";
import type { Subprocess } from "bun";
import type { Client } from "../../src/client/index.ts";
import type { CliResult, TestDaemon } from "../harness.ts";

/** Runs interminai with `args`; the environment points daemon mode at the test's daemon. */
export async function ia(d: TestDaemon, bin: string[], args: string[], opts: { stdin?: string; cwd?: string } = {}): Promise<CliResult> {
  const p = Bun.spawn([...bin, ...args], {
    stdin: opts.stdin !== undefined ? new TextEncoder().encode(opts.stdin) : "ignore",
    stdout: "pipe",
    stderr: "pipe",
    cwd: opts.cwd,
    env: d.env,
  });
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, stdout, stderr };
}

/** The path on `start`'s `Socket:` line, found as interminai's callers find it. */
export function socketOf(startOutput: string): string {
  const line = startOutput.split("\n").find((l) => l.startsWith("Socket: "));
  if (!line) throw new Error(`no Socket: line in ${JSON.stringify(startOutput)}`);
  return line.slice("Socket: ".length).trim();
}

/** `interminai start --no-daemon ARGS`: the process hosting the session itself; disposing it kills and reaps it. */
export function foreground(d: TestDaemon, bin: string[], args: string[]): Subprocess<"ignore", "pipe", "pipe"> {
  const proc = Bun.spawn([...bin, "start", "--no-daemon", ...args], { stdin: "ignore", stdout: "pipe", stderr: "pipe", env: d.env });
  // SIGKILL rather than Bun's SIGTERM: a test that failed half way must not hang on a host that waits out a grace.
  return Object.defineProperty(proc, Symbol.asyncDispose, {
    value: async () => {
      proc.kill("SIGKILL");
      await proc.exited;
    },
  });
}

/** A session made natively with its own interminai socket (what `interminai start` asks for). */
export async function nativeSession(
  d: TestDaemon,
  command: string[],
  extra: Record<string, unknown> = {},
): Promise<{ c: Client; id: string; socket: string }> {
  const c = await d.client();
  const socket = join(d.dir, `s-${crypto.randomUUID().slice(0, 8)}.sock`);
  const info = await c.call("session.create", { command, socket, socket_dialect: "interminai", rows: 10, cols: 40, ...extra });
  return { c, id: info.id, socket };
}

/** `interminai start ARGS` in daemon mode: the socket, and the session's id in the test daemon. */
export async function startSession(d: TestDaemon, bin: string[], args: string[]): Promise<{ c: Client; socket: string; id: string }> {
  const r = await ia(d, bin, ["start", ...args]);
  expect(r).toMatchObject({ code: 0, stderr: "" });
  const socket = socketOf(r.stdout);
  const c = await d.client();
  return { c, socket, id: await sessionAt(c, socket) };
}

/** The id of the daemon session behind an interminai socket. */
export async function sessionAt(c: Client, socket: string): Promise<string> {
  const { sessions } = await c.call("session.list");
  const s = sessions.find((x) => x.socket === socket);
  if (!s) throw new Error(`no session has socket ${socket}`);
  return s.id;
}

/** Waits (natively) until `text` is on the screen (a RegExp: matches a row). */
export async function seen(c: Client, id: string, text: string | RegExp): Promise<void> {
  const what = typeof text === "string" ? { text } : { regex: text.source };
  const r = await c.call("session.wait", { session: id, ...what, timeout_ms: 5000 });
  if (r.outcome !== "matched") throw new Error(`"${text}" did not show; screen:\n${r.screen.lines.join("\n")}`);
}

/** One raw exchange: send `line` as is, read until the daemon closes the connection. */
export function raw(socket: string, line: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(socket);
    let buf = "";
    s.setEncoding("utf8");
    s.on("connect", () => s.write(line));
    s.on("data", (d: string) => (buf += d));
    s.on("close", () => resolve(buf));
    s.on("error", reject);
  });
}

/** A raw request and its one reply line, parsed; the daemon must close after it. */
export async function ask(socket: string, msg: string): Promise<{ status: string; data?: any; error?: string }> {
  const reply = await raw(socket, msg + "\n");
  expect(reply.endsWith("\n")).toBe(true);
  expect(reply.trimEnd().split("\n")).toHaveLength(1);
  return JSON.parse(reply);
}

/** A relay at `path` to the socket `target`; closing it closes what goes through it. */
export interface Relay extends AsyncDisposable {
  readonly path: string;
  /** Resolves once a client's first bytes are in the daemon's socket. */
  readonly forwarded: Promise<void>;
  /** Whether the daemon has written anything back. */
  readonly answered: boolean;
}

/**
 * A socket in front of an interminai socket that tells when a request has reached the daemon and
 * whether anything came back: what shows a client blocked without waiting for a time to pass.
 */
export async function relay(target: string, path: string): Promise<Relay> {
  const { promise: forwarded, resolve } = Promise.withResolvers<void>();
  let answered = false;
  const open = new Set<Socket>();
  const server = createServer((client) => {
    const up = connect(target);
    for (const s of [client, up]) {
      open.add(s);
      s.on("error", () => {});
      s.on("close", () => open.delete(s));
    }
    client.on("data", (b) => up.write(b, () => resolve()));
    up.on("data", (b) => {
      answered = true;
      client.write(b);
    });
    client.on("close", () => up.destroy());
    up.on("close", () => client.end());
  });
  await new Promise<void>((listening) => server.listen(path, listening));
  return {
    path,
    forwarded,
    get answered() {
      return answered;
    },
    async [Symbol.asyncDispose]() {
      for (const s of open) s.destroy();
      await new Promise((closed) => server.close(closed));
    },
  };
}
