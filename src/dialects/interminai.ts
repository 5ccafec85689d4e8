// interminai's socket protocol, as interminai itself speaks it (docs/dialects.md): one JSON request
// per connection, fields beside "type"; the reply {"status":"ok","data":{…}} or
// {"status":"error","error":"…"}; then the connection closes. Each request maps onto native methods
// of the session the socket stands for (on the daemon's main socket a request may name one in
// "session", an extension). What it keeps itself is interminai's activity flag ("output since it
// was last read"): the output offset at the last read, in the session's dialect state. Departures:
// requests run concurrently instead of one at a time (a WAIT delays nobody); a field absent beside
// "type" is also looked for in a `data` object, where interminai's Python edition's client puts
// WAIT's, KILL's, RESIZE's and DEBUG's (and interminai's protocol document puts DEBUG's).
import { RpcError } from "../protocol/errors.ts";
import type { CellRun, SessionInfo } from "../protocol/schemas.ts";
import { sgrParams } from "../render/sgr.ts";
import { requestReply, type Dialect, type NativeCaller } from "./dialect.ts";
import { clientLog } from "../session/client-log.ts";

type Msg = Record<string, unknown>;
type Reply = { status: "ok"; data: Record<string, unknown> } | { status: "error"; error: string };

const ok = (data: Record<string, unknown>): Reply => ({ status: "ok", data });
const fail = (error: string): Reply => ({ status: "error", error });

/** What interminai keeps per session: the output offset (bytes_out) when the activity flag was last read. */
interface Activity {
  lastRead: number;
}
const activityOf = (info: SessionInfo, native: NativeCaller) => native.sessionState<Activity>(info.id, () => ({ lastRead: 0 }));

/** Native waits are bounded; an interminai WAIT is not, so it waits in slices of this. */
const WAIT_SLICE_MS = 3_600_000;

/** The termios flags interminai reports, in its order. */
const TERMIOS_FLAGS = ["ECHO", "ISIG", "IEXTEN", "ICRNL", "INLCR", "IGNCR", "IXON", "IXOFF", "OPOST", "ONLCR"];
const C_CC = ["VINTR", "VEOF", "VERASE", "VKILL", "VSUSP", "VQUIT"];

/** Reads the activity flag and clears it: was there output since the last read? */
function takeActivity(info: SessionInfo, native: NativeCaller): boolean {
  const a = activityOf(info, native);
  const seen = a.lastRead;
  a.lastRead = info.bytes_out;
  return info.bytes_out > seen;
}

const isInt = (x: unknown): x is number => typeof x === "number" && Number.isInteger(x);

/** A request's field: beside "type", else inside a `data` object (never INPUT's: its `data` is the text). */
function field(msg: Msg, name: string): unknown {
  if (msg[name] !== undefined) return msg[name];
  const nested = msg.data;
  return typeof nested === "object" && nested !== null && !Array.isArray(nested) ? (nested as Msg)[name] : undefined;
}

// ---- OUTPUT's ANSI form: one SGR stating the whole style where it changes, ESC[0m back to default.

/** interminai's SGR for a style, `ESC[0;<attrs>;<fg>;<bg>m`; "" for the default style. */
function sgrOf(r: CellRun): string {
  const p = sgrParams(r);
  return p.length === 0 ? "" : `\x1b[0;${p.join(";")}m`;
}

/** One row: self-contained (it starts from the default style and returns to it), trailing blanks trimmed. */
function renderRow(runs: CellRun[]): string {
  const kept = runs.map((r) => ({ ...r }));
  while (kept.length > 0) {
    const last = kept.at(-1)!;
    last.text = last.text.replace(/ +$/, "");
    if (last.text !== "") break;
    kept.pop();
  }
  let out = "";
  let cur = "";
  for (const r of kept) {
    const sgr = sgrOf(r);
    if (sgr !== cur) out += sgr === "" ? "\x1b[0m" : sgr;
    cur = sgr;
    out += r.text;
  }
  return cur === "" ? out : out + "\x1b[0m";
}

// ---- the requests

async function output(msg: Msg, session: string, native: NativeCaller): Promise<Reply> {
  const from = field(msg, "from");
  const to = field(msg, "to");
  if (from !== undefined && from !== null && from !== "-" && !isInt(from))
    return fail("Invalid 'from' value: expected an integer or \"-\"");
  if (to !== undefined && to !== null && !isInt(to)) return fail("Invalid 'to' value: expected an integer");
  const info = await native.call("session.info", { session });
  // --emulator custom gives TERM=ansi, and its screen never carries colour.
  const ansi = field(msg, "format") === "ansi" && info.term !== "ansi";
  const scrollback = from === "-" ? Number.MAX_SAFE_INTEGER : isInt(from) && from < 0 ? -from : 0;
  // A negative `to` ends the scrollback asked for there: the page starts its count that far up.
  const skip = isInt(to) && to < 0 ? Math.min(-to - 1, scrollback) : 0;
  const snap = await native.call("session.screen", {
    session,
    format: ansi ? "cells" : "text",
    scrollback: scrollback - skip,
    scrollback_end: skip,
  });
  // Trailing blanks go in both forms (the screen keeps spaces the program wrote).
  const rows = ansi ? snap.cells!.map(renderRow) : snap.lines.map((l) => l.replace(/ +$/, ""));
  // The page holds the newest lines that fit its bound: `from` says where what it gives starts.
  const above = snap.scrollback_lines + snap.scrollback_end;
  const picked: string[] = [];
  rows.forEach((row, i) => {
    const n = i < snap.scrollback_lines ? i - above : i - snap.scrollback_lines + 1; // -k … -1, then 1 … rows: there is no line 0
    if (isInt(to) && n > to) return;
    picked.push(row + "\n");
  });
  return ok({
    screen: picked.join(""),
    cursor: { row: snap.cursor.row, col: Math.min(snap.cursor.col, snap.size.cols - 1) }, // pending wrap stays on the last column
    size: snap.size,
    from: isInt(from) && from > 1 ? from : snap.scrollback_lines > 0 ? -above : 1,
    to: isInt(to) ? to : null,
    scrollback_available: snap.scrollback_total,
    scrollback_capacity: info.scrollback,
    // termd's own: the output offset the page was read at, so a client reading the scrollback in
    // pages sees output that came between two of them, with the scrollback full too.
    offset: snap.offset,
  });
}

async function status(msg: Msg, session: string, native: NativeCaller): Promise<Reply> {
  const info = await native.call("session.info", { session });
  const snap = await native.call("session.screen", { session });
  const data: Record<string, unknown> = { running: info.state === "running" };
  if (info.state !== "running") data.exit_code = info.exit_code;
  data.size = info.size;
  data.scrollback_available = snap.scrollback_total;
  data.scrollback_capacity = info.scrollback;
  if (field(msg, "activity") === true) data.activity = takeActivity(info, native);
  return ok(data);
}

/** Blocks until the program exits, or (activity) until output since the flag was last read. */
async function wait(msg: Msg, session: string, native: NativeCaller): Promise<Reply> {
  const activity = field(msg, "activity") === true;
  for (;;) {
    const info = await native.call("session.info", { session });
    const exited = info.state !== "running";
    if (activity && (exited || info.bytes_out > activityOf(info, native).lastRead)) {
      return ok({ activity: takeActivity(info, native), exited });
    }
    if (!activity && exited) return ok({ exit_code: info.exit_code });
    if (native.signal.aborted) return fail("Client disconnected");
    // Nothing runs between the info above and this call's start, so no output slips between them.
    await native.call("session.wait", { session, exit: true, activity: activity || undefined, timeout_ms: WAIT_SLICE_MS });
  }
}

async function kill(msg: Msg, session: string, native: NativeCaller): Promise<Reply> {
  const sig = field(msg, "signal");
  if (typeof sig !== "string" && !isInt(sig)) return fail("Missing 'signal' field");
  try {
    await native.call("session.signal", { session, signal: sig });
  } catch (err) {
    if (err instanceof RpcError && err.name === "INVALID_PARAMS") return fail(`Invalid signal: ${sig}`);
    if (err instanceof RpcError && err.name === "SESSION_NOT_RUNNING") return fail("Failed to send signal: ESRCH: No such process");
    throw err;
  }
  return ok({ signal_sent: sig });
}

async function resize(msg: Msg, session: string, native: NativeCaller): Promise<Reply> {
  const cols = field(msg, "cols");
  const rows = field(msg, "rows");
  if (!isInt(cols) || cols < 0) return fail("Missing 'cols' field");
  if (!isInt(rows) || rows < 0) return fail("Missing 'rows' field");
  await native.call("session.resize", { session, cols, rows });
  return ok({ cols, rows });
}

async function debug(msg: Msg, session: string, native: NativeCaller): Promise<Reply> {
  const clear = field(msg, "clear") === true;
  const d = await native.call("session.debug", { session, clear });
  const t = d.termios;
  const termios = t
    ? {
        mode: t.mode,
        flags: TERMIOS_FLAGS.filter((f) => t.flags.includes(f)),
        hex: t.hex,
        c_cc: Object.fromEntries(C_CC.map((k) => [k, t.c_cc[k] === "<undef>" ? "<disabled>" : (t.c_cc[k] ?? "?")])),
      }
    : { error: "Failed to get termios: the terminal is closed" };
  return ok({ unhandled: d.unhandled, dropped: d.dropped, termios });
}

/**
 * Replies first, then ends the session: the socket closes at once, the program gets SIGTERM. A
 * session that is not there is an error reply, as STATUS's; one that went in between is no news.
 */
async function stop(session: string, native: NativeCaller): Promise<null> {
  const { id } = await native.call("session.info", { session });
  native.send(ok({ message: "Shutting down" }));
  void native.call("session.remove", { session: id, force: true }).catch((err) => {
    if (!(err instanceof RpcError && err.name === "SESSION_NOT_FOUND")) clientLog.log(`termd: interminai STOP: ${(err as Error).message}`);
  });
  return null;
}

async function handle(raw: unknown, native: NativeCaller): Promise<Reply | null> {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    return fail('Invalid JSON: expected a JSON object with a "type" field');
  const msg = raw as Msg;
  if (typeof msg.type !== "string") return fail("Invalid JSON: missing field `type`");
  const session = native.session ?? (typeof msg.session === "string" ? msg.session : undefined);
  try {
    if (session === undefined && ["INPUT", "OUTPUT", "STATUS", "WAIT", "KILL", "RESIZE", "DEBUG", "STOP"].includes(msg.type)) {
      return fail('No session: connect to a session\'s own socket, or name one in "session"');
    }
    switch (msg.type) {
      case "INPUT":
        if (typeof msg.data !== "string") return fail("Missing 'data' field");
        await native.call("session.input", { session: session!, text: msg.data });
        return ok({});
      case "OUTPUT":
        return await output(msg, session!, native);
      case "STATUS":
        return await status(msg, session!, native);
      case "WAIT":
        return await wait(msg, session!, native);
      case "KILL":
        return await kill(msg, session!, native);
      case "RESIZE":
        return await resize(msg, session!, native);
      case "DEBUG":
        return await debug(msg, session!, native);
      case "STOP":
        return await stop(session!, native);
      default:
        return fail(`Unknown command: ${msg.type}`);
    }
  } catch (err) {
    return fail(err instanceof Error ? err.message : String(err));
  }
}

export const interminai: Dialect = requestReply({
  name: "interminai",
  oneShot: true,
  claims: (msg) => typeof msg.type === "string",
  handle,
  malformed: (message) => fail(`Invalid JSON: ${message.replace(/^invalid JSON: /i, "")}`),
});
