// ralph (docs/dialects.md): JSON-RPC 2.0 on a session's own socket (`termd start --socket
// PATH`), the dialect every JSON-RPC connection on a session socket speaks. It is the native
// dialect (every native method, the session implied) plus ralph's methods, mapped onto native calls:
//   get_status            → session.info + session.screen (recent_output: the last screen lines),
//                           with the session's interactive mode
//   write_pty {data}      → session.input {text} in interactive mode; ignored in autonomous mode
//   subscribe {events}    → session.subscribe (output, state, exit), events reshaped to ralph's
//   unsubscribe {events}  → session.unsubscribe
//   stop                  → session.stop (answered at once, as ralph's loop does)
//   set_interactive_mode  → the session's mode (ralph's default: autonomous), kept per session;
//                           every connection subscribed to state_change hears it
// Output lines are the plain text the session's vt tap makes from its own parse of the stream
// (escape sequences gone, line edits applied, as `termd logs`): once a connection used ralph's
// subscribe its output events carry `data.text` instead of bytes, which it only splits into lines.
// checkpoint and inject_prompt belong to ralph's agent loop, which termd does not run: they get
// ralph's "Method not found". Errors keep JSON-RPC codes; a native application error (SESSION_…)
// keeps its code in the server-error range, which JSON-RPC leaves to the implementation.
import * as v from "valibot";
import { RpcError } from "../protocol/errors.ts";
import type { EncodedLine, OutputFraming } from "../protocol/output-frame.ts";
import type { EventMessage, SessionState } from "../protocol/schemas.ts";
import type { Dialect } from "./dialect.ts";
import { JsonRpcConnection } from "./json-rpc.ts";

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
function ralphTime(d: Date = new Date()): string {
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

/** What ralph keeps per session (its dialect state): the mode, and the connections subscribed to its events. */
interface RalphSession {
  interactive: boolean;
  readonly subscribers: Set<RalphConnection>;
}

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

/** One connection on a ralph socket: native JSON-RPC, ralph's methods, and what it subscribed to. */
class RalphConnection extends JsonRpcConnection {
  private readonly events = new Set<RalphEvent>();
  /** ralph's subscribe was used: events go out in ralph's shape, output as lines. */
  private listening = false;
  /** The output line it is in the middle of. */
  private partial = "";
  private status = "running";

  private readonly methods: Record<string, (raw: unknown) => Promise<unknown>> = {
    get_status: () => this.getStatus(),
    stop: async () => {
      // ralph answers at once and its loop winds down after; session.stop resolves at the exit.
      this.native.call("session.stop", { session: this.sessionId }).catch(() => {});
      return { status: "stop_requested" };
    },
    write_pty: async (raw) => {
      const { data } = params(v.object({ data: v.pipe(v.string(), v.minLength(1)) }), raw, "Missing or empty 'data' parameter");
      // ralph forwards keystrokes only in interactive mode: in autonomous mode the agent is on its own.
      if (!this.session().interactive) return { status: "ignored", reason: "not in interactive mode" };
      try {
        await this.native.call("session.input", { session: this.sessionId, text: data });
      } catch (err) {
        if (err instanceof RpcError && err.name === "SESSION_NOT_RUNNING") return { status: "ignored", reason: err.message };
        throw err;
      }
      return { status: "forwarded" };
    },
    set_interactive_mode: async (raw) => {
      const { enabled } = params(v.object({ enabled: v.boolean() }), raw, "Missing or invalid 'enabled' parameter (must be bool)");
      const r = this.session();
      r.interactive = enabled;
      // As ralph does: every subscriber hears the mode, changed or not.
      for (const sub of r.subscribers) sub.modeChanged(enabled);
      return { interactive_mode: enabled };
    },
    subscribe: async (raw) => {
      const events = eventList(raw);
      const r = this.session();
      if (!r.subscribers.has(this)) {
        r.subscribers.add(this);
        this.native.signal.addEventListener("abort", () => r.subscribers.delete(this));
      }
      for (const e of events) this.events.add(e);
      const wanted = this.nativeEvents();
      if (wanted.length > 0) {
        this.listening = true;
        await this.native.call("session.subscribe", { session: this.sessionId, events: wanted });
      }
      return { subscribed: [...this.events].sort() };
    },
    unsubscribe: async (raw) => {
      const events = eventList(raw);
      if (!this.listening) return { subscribed: [] };
      for (const e of events) this.events.delete(e);
      const keep = new Set<string>(this.nativeEvents());
      const drop = (["output", "state", "exit"] as const).filter((e) => !keep.has(e));
      if (drop.length > 0) await this.native.call("session.unsubscribe", { session: this.sessionId, events: drop });
      if (keep.size === 0) this.listening = false;
      return { subscribed: [...this.events].sort() };
    },
  };

  override get plainText(): boolean {
    return this.listening;
  }

  /** Listening, its events are ralph's own lines, made by event(). */
  override get framing(): OutputFraming<EncodedLine> | null {
    return this.listening ? null : super.framing;
  }

  /** The session of the socket these requests came in on. */
  private get sessionId(): string {
    if (this.native.session === undefined) throw new RpcError("METHOD_NOT_FOUND", "ralph's methods are served on a session's own socket");
    return this.native.session;
  }

  private session(): RalphSession {
    return this.native.sessionState<RalphSession>(this.sessionId, () => ({ interactive: false, subscribers: new Set() }));
  }

  protected override method(name: string, raw: unknown): Promise<unknown> {
    const fn = Object.hasOwn(this.methods, name) ? this.methods[name] : undefined;
    return fn ? fn(raw) : super.method(name, raw);
  }

  private wants(e: "output" | "state_change"): boolean {
    return this.events.has(e) || this.events.has("*");
  }

  /** The native events these ralph events need. */
  private nativeEvents(): ("output" | "state" | "exit")[] {
    const out: ("output" | "state" | "exit")[] = [];
    if (this.wants("output")) out.push("output");
    if (this.wants("state_change")) out.push("state");
    // exit: the last partial line goes out, and the final state_change carries the exit code.
    if (out.length > 0) out.push("exit");
    return out;
  }

  /** set_interactive_mode on any connection: ralph's state_change with the new mode. */
  private modeChanged(enabled: boolean): void {
    if (this.listening && this.wants("state_change")) this.emit("state_change", { interactive_mode: enabled }, new Date().toISOString());
  }

  private emit(type: "output" | "state_change", data: Record<string, unknown>, at: string): void {
    this.native.send({ jsonrpc: "2.0", method: "event", params: { type, timestamp: ralphTime(new Date(at)), data } });
  }

  override event(e: EventMessage): void {
    if (!this.listening) return super.event(e);
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
      if (this.partial !== "" && this.wants("output")) this.emit("output", { line: this.partial }, e.timestamp);
      this.partial = "";
      if (this.wants("state_change")) this.emit("state_change", { status: this.status, exit_code: e.data.exit_code }, e.timestamp);
    }
  }

  private async getStatus(): Promise<Record<string, unknown>> {
    const session = this.sessionId;
    const [info, screen] = await Promise.all([
      this.native.call("session.info", { session }),
      this.native.call("session.screen", { session, scrollback: RECENT_LINES }),
    ]);
    const lines = [...screen.lines];
    while (lines.length > 0 && lines.at(-1) === "") lines.pop();
    const interactive = this.session().interactive;
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
}

export const ralph: Dialect = {
  name: "ralph",
  claims: (msg) => "jsonrpc" in msg,
  // Its socket is the session's: when the session ends the socket goes, so a re-attach finds no session.
  endsWithSession: true,
  open: (native) => new RalphConnection(native),
};
