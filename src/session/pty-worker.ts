// A pty worker: a thread that runs programs on PTYs and reads their output, so that however fast
// a program writes, the daemon's thread, which gets the output as messages, keeps answering
// everyone. On Linux termd owns the PTYs (native-pty.ts) and this thread's poll loop
// (pty-reactor.ts) reads them in fair slices; elsewhere Bun.Terminal reads them (pty.ts). A second
// entrypoint of the compiled binary (scripts/build.ts). It also holds the screens of the sessions
// it runs, and feeds each the output as it reads it (screen-host.ts), and writes each program's log
// (log-writer.ts): the bytes are logged and parsed on the thread that read them, and the daemon's
// thread gets them with the screen's state after them.
import { existsSync } from "node:fs";
import { ptyLibc } from "../platform/pty-libc.ts";
import { ScreenHost } from "../terminal/screen-host.ts";
import { FdLedger } from "./fd-ledger.ts";
import { LogWriter } from "./log-writer.ts";
import { AdoptedPty } from "./adopted-pty.ts";
import { NativePty, type ProgramExit, SHELL } from "./native-pty.ts";
import { Pty, type ProgramPty, type PtyEvents, type PtySpec } from "./pty.ts";
import type { FromPtyWorker, ToPtyWorker } from "./pty-messages.ts";
import { PtyReactor, SLICE } from "./pty-reactor.ts";

declare const self: Worker;

const ptys = new Map<number, ProgramPty>();
const post = (m: FromPtyWorker, transfer: ArrayBuffer[] = []) => self.postMessage(m, transfer);
const libc = existsSync(SHELL) ? ptyLibc() : null;
const screens = new ScreenHost((m) => post({ t: "screen", m }));
/** The screen each program's output is fed to as it is read, and where in the output its next byte is. */
const feeds = new Map<number, number>();
const offsets = new Map<number, number>();
/** Where each program's output is logged. */
const logs = new Map<number, LogWriter>();
/** Set by the pool's first message, when it could make the pipe that wakes the poll loop. */
let reactor: PtyReactor | null = null;
/** The descriptors only this thread would close, recorded where the pool finds them should it die (fd-ledger.ts); from the first message. */
let ledger: FdLedger | null = null;

/** One read of program `id`'s output: into its log, onto its screen, then to the daemon's thread. */
function deliver(id: number, own: Uint8Array, ack: boolean): void {
  const start = offsets.get(id) ?? 0;
  offsets.set(id, start + own.length);
  const logFailed = logs.get(id)?.write(own);
  const screen = feeds.get(id);
  // Parsed before it is handed on (the buffer goes with the message), and the screen's state goes
  // in the same message: one wake of the daemon's thread for a key's echo, not two.
  const fed = screen !== undefined && screens.writeAt(screen, own, start);
  const msg: FromPtyWorker = { t: "data", id, data: own };
  if (fed) msg.state = screens.state(screen, true) ?? undefined;
  if (ack) msg.ack = true;
  if (own.buffer.byteLength === SLICE && reactor) msg.pooled = true;
  if (fed) msg.fed = true;
  if (logFailed) msg.logFailed = logFailed;
  post(msg, [own.buffer as ArrayBuffer]);
}

function open(spec: PtySpec, on: PtyEvents): ProgramPty {
  return libc && reactor ? new NativePty(spec, on, libc, reactor) : new Pty(spec, on);
}

function adopt(m: Extract<ToPtyWorker, { t: "adopt" }>, on: PtyEvents): ProgramPty {
  if (!libc || !reactor) throw new Error("this daemon cannot read a PTY it did not start (no libc or /bin/sh)");
  return new AdoptedPty(m.pid, m.fd, on, libc, reactor, m.exit);
}

/** Set while the daemon is being replaced: no PTY is read and nothing starts. */
let held = false;
/** The programs the daemon's thread paused (flow control): a release leaves them paused. */
const paused = new Set<number>();

function holdAll(hold: boolean): void {
  held = hold;
  for (const [id, pty] of ptys) if (!paused.has(id)) hold ? pty.pause() : pty.resume();
  if (!hold) return;
  const exits: { pid: number; exit: ProgramExit }[] = [];
  for (const pty of ptys.values()) {
    const exit = pty instanceof NativePty || pty instanceof AdoptedPty ? pty.exitStatus() : null;
    if (exit) exits.push({ pid: pty.pid, exit });
  }
  post({ t: "held", exits });
}

self.onmessage = (ev: MessageEvent<ToPtyWorker>) => {
  const m = ev.data;
  if (m.t === "init") {
    ledger = new FdLedger(m.fds);
    if (libc && m.wakeFd !== null) reactor = new PtyReactor(libc, m.wakeFd);
    return;
  }
  if (m.t === "screen") return screens.handle(m.m);
  if (m.t === "feed") {
    if (m.screen === null) feeds.delete(m.id);
    else feeds.set(m.id, m.screen);
    return;
  }
  if (m.t === "hold" || m.t === "release") return holdAll(m.t === "hold");
  if (m.t === "spawn" || m.t === "adopt") {
    const id = m.id;
    if (held) return post({ t: "failed", id, message: "the daemon is being replaced; try again in a moment" });
    offsets.set(id, m.at);
    if (m.log !== null) logs.set(id, new LogWriter(m.log, m.at, ledger));
    let pty: ProgramPty;
    try {
      const on: PtyEvents = {
        // Bun.Terminal may reuse the buffer it read into: the daemon gets a copy of its own.
        data: (data, ack) => deliver(id, reactor ? data : new Uint8Array(data), ack === true),
        drain: () => post({ t: "drain", id }),
        exit: (exitCode, signal) => {
          ptys.delete(id);
          feeds.delete(id);
          paused.delete(id);
          offsets.delete(id);
          logs.get(id)?.close();
          logs.delete(id);
          post({ t: "exit", id, exitCode, signal });
        },
      };
      pty = m.t === "spawn" ? open(m.spec, on) : adopt(m, on);
    } catch (err) {
      logs.get(id)?.close();
      logs.delete(id);
      post({ t: "failed", id: m.id, message: (err as Error).message });
      return;
    }
    ptys.set(m.id, pty);
    // Said before anything that could fail: should this thread die from here on, the daemon's
    // thread knows the program to end and the master to close.
    post({ t: "spawned", id: m.id, pid: pty.pid, fd: pty.fd });
    // Right after, ahead of the program's own output (read in a later round): the start resolves
    // once the marker is in the output (child.ts).
    if (m.t === "spawn" && m.prelude) deliver(id, m.prelude, false);
    return;
  }
  const pty = ptys.get(m.id);
  switch (m.t) {
    case "write":
      return pty?.write(m.data);
    case "resize":
      return pty?.resize({ rows: m.rows, cols: m.cols });
    case "pause":
      paused.add(m.id);
      return pty?.pause();
    case "resume":
      paused.delete(m.id);
      return held ? undefined : pty?.resume();
    case "ack":
      if (m.buffers) reactor?.recycle(m.buffers);
      return pty?.acknowledged();
    case "signal":
      return pty?.signal(m.name);
    case "flags":
      return post({ t: "flags", id: m.id, req: m.req, flags: pty?.flags() ?? null });
  }
};
