// ralph (seeds/ralph-protocol.md): JSON-RPC 2.0 on a session's own socket (`termd start --socket
// PATH`). It speaks JSON-RPC 2.0, so its requests arrive as native ones; on a per-session socket
// the dispatcher looks a method it does not know up here, and these map it onto native calls:
//   get_status            → session.info + session.screen (recent_output: the last screen lines),
//                           with the session's interactive mode
//   write_pty {data}      → session.input {text} in interactive mode; ignored in autonomous mode
//   subscribe {events}    → session.subscribe (output, state, exit), events reshaped to ralph's
//   unsubscribe {events}  → session.unsubscribe
//   stop                  → session.stop (answered at once, as ralph's loop does)
//   set_interactive_mode  → the session's mode (ralph's default: autonomous), kept per session;
//                           every connection subscribed to state_change hears it
// Output lines are the plain text the session's vt tap makes from its own parse of the stream
// (escape sequences gone, a lone CR a line end, as `termd logs`): a connection whose events go to
// a dialect gets `data.text` in its output events instead of bytes, and only splits it into lines.
// checkpoint and inject_prompt belong to ralph's agent loop, which termd does not run: they get
// ralph's "Method not found". Errors keep JSON-RPC codes; a native application error (SESSION_…)
// keeps its code in the server-error range, which JSON-RPC leaves to the implementation.
import * as v from "valibot";
import { RpcError } from "../errors.ts";
import type { EventMessage, SessionState } from "../schemas.ts";
import type { NativeCaller } from "./dialect.ts";

export type RalphMethod = (params: unknown, native: NativeCaller) => Promise<unknown>;

const RALPH_EVENTS = ["*", "output", "state_change"] as const;
type RalphEvent = (typeof RALPH_EVENTS)[number];
/** Lines of the screen (and the scrollback above it) get_status returns as recent_output. */
const RECENT_LINES = 50;
/** A line with no newline yet is sent anyway once it reaches this many characters. */
const MAX_LINE = 64 * 1024;

/** ralph's status words: running, stopped, completed, failed (checkpointed has no termd twin). */
const STATUS: Record<SessionState, string> = {
  running: "running",
  exited: "completed",
  stopped: "stopped",
  killed: "stopped",
  failed: "failed",
  lost: "failed",
};

/** ralph's timestamps: Python's datetime.now().isoformat(), local time with microseconds, no zone. */
export function ralphTime(d: Date = new Date()): string {
  const p = (n: number, w = 2) => String(n).padStart(w, "0");
  return (
    `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T` +
    `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds() * 1000, 6)}`
  );
}

function params<T extends v.GenericSchema>(schema: T, raw: unknown, what: string): v.InferOutput<T> {
  const r = v.safeParse(schema, raw ?? {});
  if (!r.success) throw new RpcError("INVALID_PARAMS", what);
  return r.output;
}

/** What ralph keeps per session: its mode, and the connections subscribed to its events. */
interface RalphSession {
  interactive: boolean;
  readonly subs: Set<RalphSubscription>;
}

/**
 * By session id. An entry is small (a flag and the live subscriptions); it goes when the last
 * subscriber leaves after the session ended (its socket closes then) or in autonomous mode.
 */
const sessions = new Map<string, RalphSession>();

function ralphSession(id: string): RalphSession {
  let r = sessions.get(id);
  if (!r) sessions.set(id, (r = { interactive: false, subs: new Set() }));
  return r;
}

/** What one connection subscribed to, and the output line it is in the middle of. */
class RalphSubscription {
  readonly events = new Set<RalphEvent>();
  private partial = "";
  private status = "running";
  private off: (() => void) | null = null;
  /** The session's exit came through: its entry in `sessions` can go with the last subscriber. */
  ended = false;

  constructor(private readonly native: NativeCaller) {}

  private wants(e: "output" | "state_change"): boolean {
    return this.events.has(e) || this.events.has("*");
  }

  /** The native events these ralph events need. */
  nativeEvents(): ("output" | "state" | "exit")[] {
    const out: ("output" | "state" | "exit")[] = [];
    if (this.wants("output")) out.push("output");
    if (this.wants("state_change")) out.push("state");
    // exit: the last partial line goes out, and the final state_change carries the exit code.
    if (out.length > 0) out.push("exit");
    return out;
  }

  listen(): void {
    this.off ??= this.native.onEvent((e) => this.onNative(e));
  }

  stop(): void {
    this.off?.();
    this.off = null;
  }

  /** set_interactive_mode on any connection: ralph's state_change with the new mode. */
  modeChanged(enabled: boolean): void {
    if (this.wants("state_change")) this.emit("state_change", { interactive_mode: enabled }, new Date().toISOString());
  }

  private emit(type: "output" | "state_change", data: Record<string, unknown>, at: string): void {
    this.native.send({ jsonrpc: "2.0", method: "event", params: { type, timestamp: ralphTime(new Date(at)), data } });
  }

  private onNative(e: EventMessage): void {
    if (e.type === "output" && this.wants("output")) {
      this.partial += typeof e.data.text === "string" ? e.data.text : "";
      let nl: number;
      while ((nl = this.partial.indexOf("\n")) >= 0) {
        this.emit("output", { line: this.partial.slice(0, nl) }, e.timestamp);
        this.partial = this.partial.slice(nl + 1);
      }
      if (this.partial.length >= MAX_LINE) {
        this.emit("output", { line: this.partial }, e.timestamp);
        this.partial = "";
      }
    } else if (e.type === "state") {
      this.status = STATUS[e.data.state as SessionState] ?? String(e.data.state);
    } else if (e.type === "exit") {
      this.ended = true;
      if (this.partial !== "" && this.wants("output")) this.emit("output", { line: this.partial }, e.timestamp);
      this.partial = "";
      if (this.wants("state_change")) this.emit("state_change", { status: this.status, exit_code: e.data.exit_code }, e.timestamp);
    }
  }
}

/** Per connection (one NativeCaller each): what it subscribed to. */
const subscriptions = new WeakMap<NativeCaller, RalphSubscription>();

const EventsSchema = v.object({ events: v.array(v.string()) });

function eventList(raw: unknown): RalphEvent[] {
  const { events } = params(EventsSchema, raw, "'events' must be a list");
  for (const e of events) {
    if (!(RALPH_EVENTS as readonly string[]).includes(e)) {
      throw new RpcError("INVALID_PARAMS", `Invalid event type: '${e}'. Valid: ${RALPH_EVENTS.join(", ")}`);
    }
  }
  return events as RalphEvent[];
}

/** The session of the socket these requests came in on. */
function sessionOf(native: NativeCaller): string {
  if (native.session === undefined) throw new RpcError("METHOD_NOT_FOUND", "ralph's methods are served on a session's own socket");
  return native.session;
}

async function status(native: NativeCaller): Promise<Record<string, unknown>> {
  const session = sessionOf(native);
  const [info, screen] = await Promise.all([
    native.call("session.info", { session }),
    native.call("session.screen", { session, scrollback: RECENT_LINES }),
  ]);
  const lines = [...screen.lines];
  while (lines.length > 0 && lines.at(-1) === "") lines.pop();
  const interactive = sessions.get(info.id)?.interactive ?? false;
  return {
    task_name: info.name,
    task_dir: info.current_cwd ?? info.cwd,
    iteration: 0,
    max_iterations: 0,
    current_story: "",
    agent: info.command.join(" "),
    status: STATUS[info.state],
    interactive_mode: interactive,
    mode_indicator: interactive ? "interactive" : "autonomous",
    started_at: ralphTime(new Date(info.created_at)),
    updated_at: ralphTime(new Date(info.ended_at ?? Date.now())),
    recent_output: lines.slice(-RECENT_LINES),
  };
}

export const RALPH_METHODS: ReadonlyMap<string, RalphMethod> = new Map<string, RalphMethod>([
  ["get_status", (_p, native) => status(native)],
  [
    "stop",
    async (_p, native) => {
      // ralph answers at once and its loop winds down after; session.stop resolves at the exit.
      native.call("session.stop", { session: sessionOf(native) }).catch(() => {});
      return { status: "stop_requested" };
    },
  ],
  [
    "write_pty",
    async (raw, native) => {
      const { data } = params(v.object({ data: v.pipe(v.string(), v.minLength(1)) }), raw, "Missing or empty 'data' parameter");
      const info = await native.call("session.info", { session: sessionOf(native) });
      // ralph forwards keystrokes only in interactive mode: in autonomous mode the agent is on its own.
      if (!sessions.get(info.id)?.interactive) return { status: "ignored", reason: "not in interactive mode" };
      try {
        await native.call("session.input", { session: sessionOf(native), text: data });
      } catch (err) {
        if (err instanceof RpcError && err.name === "SESSION_NOT_RUNNING") return { status: "ignored", reason: err.message };
        throw err;
      }
      return { status: "forwarded" };
    },
  ],
  [
    "set_interactive_mode",
    async (raw, native) => {
      const { enabled } = params(v.object({ enabled: v.boolean() }), raw, "Missing or invalid 'enabled' parameter (must be bool)");
      const info = await native.call("session.info", { session: sessionOf(native) });
      const r = ralphSession(info.id);
      r.interactive = enabled;
      // As ralph does: every subscriber hears the mode, changed or not.
      for (const sub of r.subs) sub.modeChanged(enabled);
      if (!enabled && r.subs.size === 0) sessions.delete(info.id);
      return { interactive_mode: enabled };
    },
  ],
  [
    "subscribe",
    async (raw, native) => {
      const events = eventList(raw);
      let sub = subscriptions.get(native);
      if (!sub) {
        const id = (await native.call("session.info", { session: sessionOf(native) })).id;
        const created = new RalphSubscription(native);
        subscriptions.set(native, (sub = created));
        const r = ralphSession(id);
        r.subs.add(created);
        native.signal.addEventListener("abort", () => {
          r.subs.delete(created);
          if ((!r.interactive || created.ended) && r.subs.size === 0 && sessions.get(id) === r) sessions.delete(id);
        });
      }
      for (const e of events) sub.events.add(e);
      const wanted = sub.nativeEvents();
      if (wanted.length > 0) {
        sub.listen();
        await native.call("session.subscribe", { session: sessionOf(native), events: wanted });
      }
      return { subscribed: [...sub.events].sort() };
    },
  ],
  [
    "unsubscribe",
    async (raw, native) => {
      const events = eventList(raw);
      const sub = subscriptions.get(native);
      if (!sub) return { subscribed: [] };
      for (const e of events) sub.events.delete(e);
      const keep = new Set<string>(sub.nativeEvents());
      const drop = (["output", "state", "exit"] as const).filter((e) => !keep.has(e));
      if (drop.length > 0) await native.call("session.unsubscribe", { session: sessionOf(native), events: drop });
      if (keep.size === 0) sub.stop();
      return { subscribed: [...sub.events].sort() };
    },
  ],
]);
