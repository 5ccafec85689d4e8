// `interminai start`: one session running CMD, with a socket of its own speaking interminai's
// protocol. By default the session lives in the user's termd daemon (started if need be) and
// `start` prints PID, Socket, Auto-generated and exits; with --no-daemon this process hosts the
// daemon core for that one session, prints Socket, PID, Auto-generated and exits 0 after `stop`.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { RpcError } from "../../protocol/errors.ts";
import { defaultSocketPath } from "../../protocol/paths.ts";
import type { CreateInput, SessionInfo } from "../../protocol/schemas.ts";
import { connectOrStart } from "../connect-or-start.ts";
import { parseSize, type Subcommand } from "./args.ts";
import { UsageError } from "../args.ts";
import { keepRunningOnClosedOutput, writeOut } from "../closed-stdout.ts";

type Create = (p: NonNullable<CreateInput>) => Promise<SessionInfo>;

/** Grace between SIGTERM and SIGKILL when a foreground session stops (an interactive shell ignores SIGTERM). */
const FOREGROUND_STOP_GRACE_MS = 500;

/**
 * interminai forks and then execs CMD; a child whose exec fails exits 1, so the session runs and
 * its program has exited 1. termd cannot spawn what does not exist, so a shell stands in for it.
 */
async function createOrFail(create: Create, p: NonNullable<CreateInput>): Promise<SessionInfo> {
  try {
    return await create(p);
  } catch (e) {
    if (!(e instanceof RpcError && e.name === "SPAWN_FAILED")) throw e;
    return create({ ...p, command: ["/bin/sh", "-c", 'printf "%s\\n" "$0" >&2; exit 1', e.message] });
  }
}

/** A fresh private folder named interminai-… in the temp dir, with no whitespace in its path. */
function autoSocket(): { dir: string; path: string } {
  const base = /\s/.test(tmpdir()) ? "/tmp" : tmpdir();
  const dir = mkdtempSync(join(base, "interminai-"));
  return { dir, path: join(dir, "socket") };
}

function scrollbackOf(v: string | undefined): number {
  if (v === undefined) return 10_000;
  if (!/^\d+$/.test(v) || Number(v) > 1_000_000)
    throw new UsageError(
      `error: invalid value '${v}' for '--scrollback <LINES>': expected a number of lines up to 1000000\n\nFor more information, try '--help'.\n`,
    );
  return Number(v);
}

/** The caller's environment for the program, as a forked child would inherit it. */
function programEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("TERMD_") && k !== "TERM") env[k] = v;
  return env;
}

async function inDaemon(p: NonNullable<CreateInput>, shown: string, auto: boolean): Promise<number> {
  const client = await connectOrStart(defaultSocketPath());
  try {
    await createOrFail((q) => client.call("session.create", q), p);
    const { pid } = await client.call("system.ping");
    await writeOut(`PID: ${pid}\nSocket: ${shown}\nAuto-generated: ${auto}\n`);
    return 0;
  } finally {
    client.close();
  }
}

async function inForeground(p: NonNullable<CreateInput>, shown: string, auto: boolean): Promise<never> {
  const stateDir = mkdtempSync(join(tmpdir(), "termd-interminai-"));
  const removeState = () => rmSync(stateDir, { recursive: true, force: true });
  // Loaded when used: only --no-daemon hosts the daemon in this process.
  const { hostInProcess } = await import("../../server/daemon-host.ts");
  const host = hostInProcess({
    socketPath: defaultSocketPath(),
    stateDir,
    stopGraceMs: FOREGROUND_STOP_GRACE_MS,
    ttlMs: 24 * 3600 * 1000,
    exitWhenEmpty: true,
  });
  try {
    await createOrFail((q) => host.call("session.create", q), p);
  } catch (e) {
    host.daemon.close();
    removeState();
    throw e;
  }
  keepRunningOnClosedOutput();
  process.on("uncaughtException", (err) => console.error("interminai: uncaught exception (still serving):", err));
  process.on("unhandledRejection", (err) => console.error("interminai: unhandled rejection (still serving):", err));
  for (const sig of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.on(sig, () => void host.daemon.shutdown());
  process.on("exit", () => {
    host.daemon.close();
    removeState();
  });
  // Listening already: the caller may connect as soon as it has read these three lines.
  await writeOut(`Socket: ${shown}\nPID: ${process.pid}\nAuto-generated: ${auto}\n`);
  await host.daemon.stopped.promise;
  process.exit(0);
}

export const start: Subcommand = {
  name: "start",
  about: "Start a new interactive terminal session",
  opts: [
    { long: "socket", value: "SOCKET", help: "Unix socket path (auto-generated if not specified)" },
    { long: "size", value: "SIZE", help: "Terminal size, columns first (e.g., 80x24) [default: 80x24]" },
    {
      long: "emulator",
      value: "EMULATOR",
      help: "Terminal emulator: xterm (full, TERM=xterm-256color) or custom (TERM=ansi, no colour) [default: xterm]",
      possible: ["xterm", "custom"],
    },
    { long: "no-daemon", help: "Run in foreground (for debugging/testing, default: daemon mode)" },
    { long: "pty-dump", value: "FILE", help: "Dump all raw PTY output to this file (for debugging)" },
    { long: "scrollback", value: "LINES", help: "Scrollback capacity in lines [default: 10000]" },
  ],
  trailing: { name: "COMMAND", help: "Command to run" },
  async run(a) {
    const { cols, rows } = parseSize(a.values.get("size") ?? "80x24");
    const scrollback = scrollbackOf(a.values.get("scrollback"));
    const given = a.values.get("socket");
    const auto = given === undefined ? autoSocket() : null;
    const socket = auto ? auto.path : resolve(given!); // the daemon's cwd is not ours
    const dump = a.values.get("pty-dump");
    const p: NonNullable<CreateInput> = {
      command: a.trailing,
      cwd: process.cwd(),
      env: programEnv(),
      rows,
      cols,
      scrollback,
      term: a.values.get("emulator") === "custom" ? "ansi" : "xterm-256color",
      socket,
      socket_dialect: "interminai",
      socket_cleanup: auto ? "rmdir" : "keep",
      ...(dump !== undefined ? { log_path: resolve(dump), log_append: true } : {}),
    };
    try {
      if (a.flags.has("no-daemon")) return await inForeground(p, auto ? auto.path : given!, auto !== null);
      return await inDaemon(p, auto ? auto.path : given!, auto !== null);
    } catch (e) {
      if (auto) rmSync(auto.dir, { recursive: true, force: true });
      throw e;
    }
  },
};
