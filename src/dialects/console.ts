// The console server (docs/dialects.md, cp-console-server): JSON lines `{"cmd": …}` on a
// persistent connection, replies `{ok, error?, pid?, status?, exit_code?, sessions?}`. A console
// `key` is a termd session name; the dialect sees only the sessions created through it (they carry
// `meta.dialect: "console"`), as a client of the real server sees only that server's. The mapping,
// as context-pilot's console manager relies on it:
//   ping                          → {ok}
//   create {key, command, log_path, cwd?} → session.create {name: key, command: sh -c COMMAND,
//                                   cwd (default: the server's own), log_path}: the log file gets
//                                   every output byte; a session under the key is replaced
//   send {key, input}             → session.input {base64} with \n \r \t \\ \e \0 \xHH interpreted
//   kill {key, force?}            → session.stop (SIGTERM, then SIGKILL after 100 ms; force: at once)
//   remove {key, force?}          → session.stop if running, then session.remove
//   status {key} / list           → session.info / session.list: "running" or "exited(N)"
//   stats                         → system.stats, as the server's one-line status string
//   shutdown                      → system.shutdown: every session stopped, then the daemon exits
// Replies and error texts follow the server's own ("Session 'k' not found", "Unknown command: x").
import { RpcError } from "../protocol/errors.ts";
import type { SessionInfo } from "../protocol/schemas.ts";
import { requestReply, type Dialect, type NativeCaller } from "./dialect.ts";

type Reply = { ok: boolean; error?: string; pid?: number; status?: string; exit_code?: number | null; sessions?: unknown[] };

const fail = (error: string): Reply => ({ ok: false, error });

/** kill's grace before SIGKILL: the real server's 100 ms (its client reads with a 5 s timeout). */
export const CONSOLE_KILL_GRACE_MS = 100;

const isConsole = (s: SessionInfo) => (s.meta as { dialect?: unknown } | undefined)?.dialect === "console";

/** One of this dialect's sessions; another's is SESSION_NOT_FOUND, as if it were not there. */
async function own(native: NativeCaller, key: string): Promise<SessionInfo> {
  const s = await native.call("session.info", { session: key });
  if (!isConsole(s)) throw new RpcError("SESSION_NOT_FOUND", `no session ${JSON.stringify(key.slice(0, 64))}`);
  return s;
}

/** The server's escapes: \n \r \t \\ \e \0 \xHH; any other backslash stays as it is. */
export function interpretEscapes(input: string): Uint8Array {
  const bytes = new TextEncoder().encode(input);
  const out: number[] = [];
  const hex = (b: number | undefined) =>
    b === undefined ? -1 : b >= 48 && b <= 57 ? b - 48 : b >= 97 && b <= 102 ? b - 87 : b >= 65 && b <= 70 ? b - 55 : -1;
  const simple: Record<number, number> = { 110: 0x0a, 114: 0x0d, 116: 0x09, 92: 0x5c, 101: 0x1b, 48: 0x00 };
  for (let i = 0; i < bytes.length; ) {
    const b = bytes[i]!;
    if (b !== 0x5c || i + 1 >= bytes.length) {
      out.push(b);
      i++;
      continue;
    }
    const next = bytes[i + 1]!;
    if (next in simple) {
      out.push(simple[next]!);
      i += 2;
    } else if (next === 120 && hex(bytes[i + 2]) >= 0 && hex(bytes[i + 3]) >= 0) {
      out.push(hex(bytes[i + 2]) * 16 + hex(bytes[i + 3]));
      i += 4;
    } else {
      out.push(b);
      i++;
    }
  }
  return Uint8Array.from(out);
}

function statusOf(info: SessionInfo): { status: string; exit_code?: number } {
  if (info.state === "running") return { status: "running" };
  const code = info.exit_code ?? -1;
  return { status: `exited(${code})`, exit_code: code };
}

function str(msg: Record<string, unknown>, field: string): string {
  const v = msg[field];
  return typeof v === "string" ? v : "";
}

/** The server's words for native errors about one session. */
function sessionError(err: unknown, key: string): Reply {
  if (err instanceof RpcError && err.name === "SESSION_NOT_FOUND") return fail(`Session '${key}' not found`);
  if (err instanceof RpcError && err.name === "SESSION_NOT_RUNNING") return fail(`Session '${key}' already exited`);
  return fail(err instanceof Error ? err.message : String(err));
}

async function create(msg: Record<string, unknown>, native: NativeCaller): Promise<Reply> {
  const key = str(msg, "key");
  const command = str(msg, "command");
  const logPath = str(msg, "log_path");
  if (!key || !command || !logPath) return fail("Missing key, command, or log_path");
  // Without cwd the command runs where the server runs: context-pilot starts it in the project root.
  const cwd = typeof msg.cwd === "string" && msg.cwd !== "" ? msg.cwd : process.cwd();
  const params = { name: key, command: ["/bin/sh", "-c", command], cwd, log_path: logPath, meta: { dialect: "console" } };
  try {
    return { ok: true, pid: (await native.call("session.create", params)).pid ?? 0 };
  } catch (err) {
    if (!(err instanceof RpcError && err.name === "NAME_TAKEN")) return fail(err instanceof Error ? err.message : String(err));
  }
  // The server replaces what it has under a key, running or not: the old one is killed (SIGTERM,
  // SIGKILL after 100 ms) and forgotten. A session under that name that is not the console's is
  // not touched.
  try {
    const old = await native.call("session.info", { session: key });
    if (!isConsole(old)) return fail(`Session '${key}' is taken by another client`);
    if (old.state === "running") await native.call("session.stop", { session: old.id, grace_ms: CONSOLE_KILL_GRACE_MS });
    await native.call("session.remove", { session: old.id, force: true });
    return { ok: true, pid: (await native.call("session.create", params)).pid ?? 0 };
  } catch (err) {
    return fail(err instanceof Error ? err.message : String(err));
  }
}

async function handle(msg: Record<string, unknown>, native: NativeCaller): Promise<Reply> {
  const cmd = msg.cmd;
  if (typeof cmd !== "string") return fail('Invalid JSON: "cmd" must be a string');
  const key = str(msg, "key");
  const needsKey = ["send", "kill", "remove", "status"].includes(cmd);
  if (needsKey && !key) return fail("Missing key");
  const grace = { grace_ms: msg.force === true ? 0 : CONSOLE_KILL_GRACE_MS };
  try {
    switch (cmd) {
      case "ping":
        return { ok: true };
      case "create":
        return await create(msg, native);
      case "send": {
        const bytes = interpretEscapes(str(msg, "input"));
        await own(native, key);
        await native.call("session.input", { session: key, base64: Buffer.from(bytes).toString("base64") });
        return { ok: true };
      }
      case "kill":
        await own(native, key);
        await native.call("session.stop", { session: key, ...grace });
        return { ok: true };
      case "remove": {
        let info: SessionInfo;
        try {
          info = await own(native, key);
        } catch (err) {
          // Removing what is not there is no error for the server.
          if (err instanceof RpcError && err.name === "SESSION_NOT_FOUND") return { ok: true };
          throw err;
        }
        if (info.state === "running") await native.call("session.stop", { session: key, ...grace });
        await native.call("session.remove", { session: key, force: true });
        return { ok: true };
      }
      case "status":
        return { ok: true, ...statusOf(await own(native, key)) };
      case "list": {
        const { sessions } = await native.call("session.list", {});
        return {
          ok: true,
          sessions: sessions.filter(isConsole).map((s) => {
            const st = statusOf(s);
            return { key: s.name, pid: s.pid ?? 0, status: st.status, exit_code: st.exit_code ?? null };
          }),
        };
      }
      case "stats": {
        const [st, ping] = await Promise.all([native.call("system.stats", {}), native.call("system.ping", {})]);
        const status =
          `sessions: ${st.sessions} (running=${st.running}, exited=${st.sessions - st.running}), ` +
          `connections=${st.connections}, memory_rss_bytes=${st.memory_rss_bytes}, uptime_s=${st.uptime_s}, pid=${ping.pid}`;
        return { ok: true, status };
      }
      case "shutdown":
        await native.call("system.shutdown", {});
        return { ok: true };
      default:
        return fail(`Unknown command: ${cmd}`);
    }
  } catch (err) {
    return sessionError(err, key);
  }
}

export const consoleServer: Dialect = requestReply({
  name: "console",
  claims: (msg) => "cmd" in msg,
  malformed: (message) => fail(message.replace(/^invalid JSON/, "Invalid JSON")),
  handle: async (msg, native) => {
    if (typeof msg !== "object" || msg === null || Array.isArray(msg)) return fail('Invalid JSON: a request is an object with a "cmd"');
    return handle(msg as Record<string, unknown>, native);
  },
});
