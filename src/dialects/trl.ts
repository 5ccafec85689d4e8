// TRL, the Terminal Runtime Layer (docs/dialects.md), as claw-core's server and clients have it:
// `{id, method, params}` lines answered with `{id, ok, data}` or `{id, ok: false, error: {code,
// message}}`. A TRL session is a termd session running its shell; its session_id is the termd id.
// The dialect sees only the sessions it created: they carry `meta.dialect: "trl"`, with TRL's own
// fields (the free `name` label, `env_keys`, `timeout_s`) beside it. The mapping:
//   session.create {shell, env, working_dir, name, timeout_s} → session.create {command: [shell],
//                    env, cwd, exec_timeout_ms, meta} (timeout_s default: TRL_DEFAULT_TIMEOUT_S, 60)
//   session.list / session.info {session_id}  → session.list / session.info, TRL's sessions only
//                    (list entries add claw-core's `env`, its values withheld: HIDDEN_ENV_VALUE)
//   session.destroy {session_id, force}       → SIGHUP (a shell's "terminal closed"), session.stop
//                    (force: no grace), session.remove; SESSION_BUSY mid-command without force
//   exec.run {session_id, command, timeout_s, stdin, env} → exec.run with fresh: a new
//                    `SHELL -c COMMAND` in working_dir over pipes, so nothing persists between runs
//   exec.cancel {session_id, signal}          → exec.cancel
//   system.ping / system.stats                → system.ping / system.stats
// TRL's session states: idle (no command running), running (an exec.run in progress),
// terminated (ended). A timed-out exec.run answers COMMAND_TIMEOUT, with what the command wrote
// so far in `data` beside the error. Unknown methods and unreadable lines get INVALID_PARAMS, as
// the TRL server answers them.
import * as v from "valibot";
import { RpcError, type ErrorName } from "../protocol/errors.ts";
import type { SessionInfo } from "../protocol/schemas.ts";
import { requestReply, type Dialect, type NativeCaller } from "./dialect.ts";

type TrlCode =
  | "SESSION_NOT_FOUND"
  | "SESSION_BUSY"
  | "COMMAND_TIMEOUT"
  | "COMMAND_FAILED"
  | "INVALID_PARAMS"
  | "INTERNAL_ERROR"
  | "AUTH_FAILED";
type Id = string | number;
type Reply = { id: Id; ok: boolean; data?: unknown; error?: { code: TrlCode; message: string } };

class TrlError extends Error {
  constructor(
    readonly code: TrlCode,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

const CODE_OF: Partial<Record<ErrorName, TrlCode>> = {
  SESSION_NOT_FOUND: "SESSION_NOT_FOUND",
  // A session whose shell has ended can run nothing: a client starts a new one.
  SESSION_NOT_RUNNING: "SESSION_NOT_FOUND",
  SESSION_BUSY: "SESSION_BUSY",
  // A person took the session over: as busy as a session gets, until they give it back.
  SESSION_HELD: "SESSION_BUSY",
  TIMEOUT: "COMMAND_TIMEOUT",
  UNAUTHORIZED: "AUTH_FAILED",
  INVALID_PARAMS: "INVALID_PARAMS",
  INVALID_REQUEST: "INVALID_PARAMS",
  METHOD_NOT_FOUND: "INVALID_PARAMS",
  PARSE_ERROR: "INVALID_PARAMS",
  NAME_TAKEN: "INVALID_PARAMS",
  SPAWN_FAILED: "INVALID_PARAMS",
  NOT_A_SHELL: "INVALID_PARAMS",
  PAYLOAD_TOO_LARGE: "INVALID_PARAMS",
};

function toTrl(err: unknown): TrlError {
  if (err instanceof TrlError) return err;
  if (err instanceof RpcError) return new TrlError(CODE_OF[err.name] ?? "INTERNAL_ERROR", err.message);
  return new TrlError("INTERNAL_ERROR", err instanceof Error ? err.message : String(err));
}

function parse<T extends v.GenericSchema>(schema: T, raw: unknown): v.InferOutput<T> {
  const r = v.safeParse(schema, raw);
  if (r.success) return r.output;
  const msg = r.issues
    .map((i) => {
      const path = i.path?.map((p) => String(p.key)).join(".");
      return i.received === "undefined" && path ? `missing field \`${path}\`` : path ? `${path}: ${i.message}` : i.message;
    })
    .join("; ");
  throw new TrlError("INVALID_PARAMS", msg);
}

const SessionId = v.object({ session_id: v.pipe(v.string(), v.minLength(1)) });
const Seconds = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(24 * 3600));

const CreateParams = v.object({
  shell: v.optional(v.pipe(v.string(), v.minLength(1))),
  env: v.optional(v.record(v.string(), v.string())),
  working_dir: v.optional(v.pipe(v.string(), v.minLength(1))),
  name: v.optional(v.nullable(v.string())),
  timeout_s: v.optional(Seconds),
});
const DestroyParams = v.object({ ...SessionId.entries, force: v.optional(v.boolean(), false) });
const RunParams = v.object({
  ...SessionId.entries,
  command: v.string(),
  timeout_s: v.optional(v.nullable(Seconds)),
  stdin: v.optional(v.nullable(v.string())),
  env: v.optional(v.nullable(v.record(v.string(), v.string()))),
});
const CancelParams = v.object({ ...SessionId.entries, signal: v.optional(v.union([v.string(), v.number()])) });

/** TRL's word for where a session is: idle at its prompt, running a command, or terminated. */
function trlState(s: SessionInfo): "idle" | "running" | "terminated" {
  if (s.state !== "running") return "terminated";
  return s.busy ? "running" : "idle";
}

/** exec.run's timeout for a session created without timeout_s: TRL_DEFAULT_TIMEOUT_S, else 60 s (claw-core's). */
function defaultTimeoutS(): number {
  const n = Number(process.env.TRL_DEFAULT_TIMEOUT_S);
  return process.env.TRL_DEFAULT_TIMEOUT_S !== undefined && Number.isInteger(n) && n >= 0 ? n : 60;
}

/** What the dialect keeps in a session's `meta`. */
interface TrlMeta {
  dialect: "trl";
  name: string | null;
  env_keys: string[];
  timeout_s: number;
}

function trlMeta(s: SessionInfo): TrlMeta | null {
  const m = s.meta as Partial<TrlMeta> | undefined;
  return m?.dialect === "trl" ? (m as TrlMeta) : null;
}

/**
 * What session.list shows for each value of a session's env. claw-core lists the values; here
 * every TRL client sees every TRL session, so one agent's API key would reach the next agent's
 * listing (and its transcript). The names are kept, in claw-core's shape; the session's commands
 * still get the values.
 */
export const HIDDEN_ENV_VALUE = "<hidden>";

function view(s: SessionInfo, m: TrlMeta): Record<string, unknown> {
  return {
    session_id: s.id,
    // The name it was given, or the one it got later (session.rename); an unnamed session's native name is its id.
    name: s.name !== s.id ? s.name : m.name,
    shell: s.command[0] ?? null,
    working_dir: s.cwd,
    current_dir: s.cwd,
    state: trlState(s),
    pid: s.pid,
    exit_code: s.exit_code,
    env_keys: m.env_keys,
    created_at: s.created_at,
    last_activity: s.last_command_at ?? s.created_at,
    command_count: s.commands_run,
    timeout_s: m.timeout_s,
  };
}

/** One of this dialect's sessions; any other is SESSION_NOT_FOUND, as if it did not exist. */
async function own(native: NativeCaller, id: string): Promise<{ s: SessionInfo; m: TrlMeta }> {
  const s = await native.call("session.info", { session: id });
  const m = trlMeta(s);
  if (!m) throw new TrlError("SESSION_NOT_FOUND", `no session ${JSON.stringify(id.slice(0, 64))}`);
  return { s, m };
}

type Method = (params: unknown, native: NativeCaller) => Promise<unknown>;

const METHODS: Record<string, Method> = {
  "system.ping": async (_p, native) => {
    const { uptime_s, version } = await native.call("system.ping", {});
    return { uptime_s, version };
  },
  "system.stats": async (_p, native) => {
    const s = await native.call("system.stats", {});
    return {
      active_sessions: s.running,
      total_commands_run: s.commands_run,
      uptime_s: s.uptime_s,
      memory_rss_bytes: s.memory_rss_bytes,
      open_fds: s.open_fds,
    };
  },
  "session.create": async (raw, native) => {
    const p = parse(CreateParams, raw);
    const meta: TrlMeta = {
      dialect: "trl",
      name: p.name ?? null,
      env_keys: Object.keys(p.env ?? {}),
      timeout_s: p.timeout_s ?? defaultTimeoutS(),
    };
    // No termd name: TRL's `name` is a free label (any text, duplicates allowed), kept in meta.
    const s = await native.call("session.create", {
      command: [p.shell ?? "/bin/sh"],
      env: p.env,
      cwd: p.working_dir ?? "/tmp",
      exec_timeout_ms: meta.timeout_s * 1000,
      meta: { ...meta },
    });
    const { session_id, shell, working_dir, state, created_at, name } = view(s, meta);
    return { session_id, shell, working_dir, state, created_at, name };
  },
  "session.list": async (_p, native) => {
    const sessions = (await native.call("session.list", {})).sessions;
    const entry = (s: SessionInfo, m: TrlMeta) => ({
      ...view(s, m),
      env: Object.fromEntries(m.env_keys.map((k) => [k, HIDDEN_ENV_VALUE])),
    });
    return { sessions: sessions.flatMap((s) => (trlMeta(s) ? [entry(s, trlMeta(s)!)] : [])) };
  },
  "session.info": async (raw, native) => {
    const { s, m } = await own(native, parse(SessionId, raw).session_id);
    return view(s, m);
  },
  "session.destroy": async (raw, native) => {
    const p = parse(DestroyParams, raw);
    const { s } = await own(native, p.session_id);
    if (s.busy && !p.force)
      throw new TrlError("SESSION_BUSY", `session ${p.session_id} is running a command; pass force to destroy it anyway`);
    if (s.state === "running") {
      // SIGHUP first: an interactive shell ignores SIGTERM, but a hangup ends it and its jobs.
      await native.call("session.signal", { session: s.id, signal: "SIGHUP" }).catch(() => {});
      await native.call("session.stop", { session: s.id, ...(p.force ? { grace_ms: 0 } : {}) });
    }
    await native.call("session.remove", { session: s.id, force: true });
    return { session_id: s.id, state: "terminated" };
  },
  "exec.run": async (raw, native) => {
    const p = parse(RunParams, raw);
    const { s } = await own(native, p.session_id);
    const r = await native.call("exec.run", {
      session: s.id,
      fresh: true,
      command: p.command,
      timeout_ms: p.timeout_s != null ? p.timeout_s * 1000 : undefined,
      stdin: p.stdin ?? undefined,
      env: p.env ?? undefined,
    });
    const data = {
      stdout: r.output,
      stderr: r.stderr,
      exit_code: r.exit_code ?? -1,
      duration_ms: r.duration_ms,
      timed_out: r.timed_out,
      cancelled: r.cancelled,
    };
    if (r.timed_out) throw new TrlError("COMMAND_TIMEOUT", "command timed out", data);
    return data;
  },
  "exec.cancel": async (raw, native) => {
    const p = parse(CancelParams, raw);
    const { s } = await own(native, p.session_id);
    const r = await native.call("exec.cancel", { session: s.id, signal: p.signal });
    return { session_id: p.session_id, cancelled: r.cancelled, signal: r.signal_sent };
  },
};

const Request = v.object({ id: v.optional(v.union([v.string(), v.number()])), method: v.string(), params: v.optional(v.unknown()) });

export const trl: Dialect = requestReply({
  name: "trl",
  claims: (msg) => "method" in msg && !("jsonrpc" in msg),
  malformed: (message): Reply => ({
    id: "unknown",
    ok: false,
    error: { code: "INVALID_PARAMS", message: message.replace(/^invalid JSON/, "invalid JSON request") },
  }),
  handle: async (msg, native): Promise<Reply> => {
    const req = v.safeParse(Request, msg);
    if (!req.success) {
      const raw = typeof msg === "object" && msg !== null ? (msg as { id?: unknown }).id : undefined;
      const id = typeof raw === "string" || typeof raw === "number" ? raw : "unknown";
      return { id, ok: false, error: { code: "INVALID_PARAMS", message: 'invalid request: needs a string "method" (and a string id)' } };
    }
    const { id = "unknown", method, params = {} } = req.output;
    const fn = Object.hasOwn(METHODS, method) ? METHODS[method] : undefined;
    if (!fn) return { id, ok: false, error: { code: "INVALID_PARAMS", message: `unsupported method: ${method}` } };
    try {
      if (typeof params !== "object" || params === null || Array.isArray(params))
        throw new TrlError("INVALID_PARAMS", "params must be an object");
      return { id, ok: true, data: await fn(params, native) };
    } catch (err) {
      const e = toTrl(err);
      return { id, ok: false, ...(e.data !== undefined ? { data: e.data } : {}), error: { code: e.code, message: e.message } };
    }
  },
});
