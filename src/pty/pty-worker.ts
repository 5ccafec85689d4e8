// A pty worker: a thread that runs programs on PTYs and reads their output, so that however fast
// a program writes, the daemon's thread, which gets the output as messages, keeps answering
// everyone. On Linux termd owns the PTYs (native-pty.ts) and this thread's poll loop
// (pty-reactor.ts) reads them in fair slices; elsewhere Bun.Terminal reads them (pty.ts). A second
// entrypoint of the compiled binary (scripts/compile.ts). It also holds the screens of the
// sessions it runs, and feeds each the output as it reads it (terminal/screen-host.ts), and writes
// each program's log (log-writer.ts), and runs each program's vt tap (terminal/vt-tap.ts): the
// bytes are logged and parsed on the thread that read them, once by the tap and once by the
// screen, and the daemon's thread gets them with what the tap found in them and the screen's state
// after them.
import { existsSync } from "node:fs";
import { ptyLibc } from "../platform/pty-libc.ts";
import { Timers } from "../platform/timers.ts";
import { ScreenHost } from "../terminal/screen-host.ts";
import { faultText } from "../terminal/errors.ts";
import type { TapUpdate } from "../terminal/tap-facts.ts";
import { VtTap } from "../terminal/vt-tap.ts";
import { nonPlainEnd } from "../terminal/fast-forward.ts";
import { FdLedger } from "./fd-ledger.ts";
import { IdleFiles } from "./idle-files.ts";
import { LogWriter } from "./log-writer.ts";
import { AdoptedPty } from "./adopted-pty.ts";
import { NativePty, SHELL } from "./native-pty.ts";
import type { ProgramExit } from "./polled-pty.ts";
import { Pty, type ProgramPty, type PtyEvents, type PtySpec } from "./pty.ts";
import { handOver } from "./pty-master.ts";
import type { FromPtyWorker, ToPtyWorker } from "./pty-messages.ts";
import { PtyReactor, SLICE } from "./pty-reactor.ts";
import { TeeWriter } from "./tee.ts";

declare const self: Worker;

const ptys = new Map<number, ProgramPty>();
const post = (m: FromPtyWorker, transfer: ArrayBuffer[] = []) => self.postMessage(m, transfer);
const libc = existsSync(SHELL) ? ptyLibc() : null;
const screens = new ScreenHost((m) => post({ t: "screen", m }));
/** The screen each program's output is fed to as it is read. */
const feeds = new Map<number, number>();
/** Each program's vt tap, which also counts where in the output its next byte is; and the release of its text, while wanted. */
const taps = new Map<number, VtTap>();
const texts = new Map<number, () => void>();
/** Where each program's output is logged, and copied (log_path). */
const logs = new Map<number, LogWriter>();
/** The log files open now, closed once idle: this thread's own (it ends with the thread, and them with it). */
const idleFiles = new IdleFiles(new Timers());
/** Input bytes each program was sent (its "write" messages), told with each drain. */
const inputTaken = new Map<number, number>();
const tees = new Map<number, TeeWriter>();
/** Set by the pool's first message, when it could make the pipe that wakes the poll loop. */
let reactor: PtyReactor | null = null;
/** The descriptors only this thread would close, recorded where the pool finds them should it die (fd-ledger.ts); from the first message. */
let ledger: FdLedger | null = null;

/** One read of program `id`'s output: into its log, through its tap, onto its screen, then to the daemon's thread. */
function deliver(id: number, own: Uint8Array, ack: boolean): void {
  const tap = taps.get(id);
  // Nothing is read for a program this thread has let go of (its exit came first).
  if (!tap) return;
  const start = tap.end;
  const logFailed = logs.get(id)?.write(own);
  const teeFailed = tees.get(id)?.write(own);
  const read = readTap(id, tap, own);
  const screen = feeds.get(id);
  // Parsed before it is handed on (the buffer goes with the message), and the screen's state goes
  // in the same message: one wake of the daemon's thread for a key's echo, not two.
  const fed = screen !== undefined && screens.writeAt(screen, own, start);
  // Where the plain text at its end begins, for fast-forward: found here, on the thread that read it.
  const msg: FromPtyWorker = { t: "data", id, data: own, tap: read, nonPlain: nonPlainEnd(own, start) };
  if (fed) msg.state = screens.state(screen, true) ?? undefined;
  if (ack) msg.ack = true;
  if (own.buffer.byteLength === SLICE && reactor) msg.pooled = true;
  if (fed) msg.fed = true;
  if (logFailed) msg.logFailed = logFailed;
  if (teeFailed) {
    msg.teeFailed = teeFailed;
    tees.delete(id);
  }
  post(msg, [own.buffer as ArrayBuffer]);
}

/**
 * What the tap finds in one read. A tap that fails is replaced by one that goes on after the read
 * (this read's findings lost, and any sequence it was in): one program's bytes must not take the
 * thread, and every program on it, down.
 */
function readTap(id: number, tap: VtTap, own: Uint8Array): TapUpdate {
  const start = tap.end;
  try {
    return tap.feed(own);
  } catch (err) {
    console.error(`termd: program ${id}: the vt tap failed on its output: ${faultText(err)}`);
    const end = start + own.length;
    const next = new VtTap({ debugBuffer: tap.facts.debugBuffer, resume: { ...tap.save(), end } });
    taps.set(id, next);
    if (texts.has(id)) texts.set(id, next.wantText());
    return { end, events: [], hold: null };
  }
}

/** Stops what the worker holds for a program that ended or never started. */
function forget(id: number): void {
  ptys.delete(id);
  inputTaken.delete(id);
  paused.delete(id);
  feeds.delete(id);
  taps.delete(id);
  texts.delete(id);
  tees.delete(id);
  logs.get(id)?.close();
  logs.delete(id);
}

function wantText(id: number, on: boolean): void {
  const tap = taps.get(id);
  if (on && tap && !texts.has(id)) texts.set(id, tap.wantText());
  if (!on) {
    texts.get(id)?.();
    texts.delete(id);
  }
}

function open(spec: PtySpec, on: PtyEvents): ProgramPty {
  return libc && reactor ? new NativePty(spec, on, libc, reactor, ledger) : new Pty(spec, on);
}

function adopt(m: Extract<ToPtyWorker, { t: "adopt" }>, on: PtyEvents): ProgramPty {
  if (!libc || !reactor) throw new Error("this daemon cannot read a PTY it did not start (no libc or /bin/sh)");
  const pty = new AdoptedPty(m.pid, m.fd, on, libc, reactor, m.exit);
  // The session's size may be one the earlier image's worker never applied (a resize posted to it
  // once held): set before anything is written, so input typed after the resize sees it. The same
  // size again changes nothing; another also sends SIGWINCH, as any resize does.
  pty.resize(m.size);
  return pty;
}

/** Set while the daemon is being replaced: no PTY is read and nothing starts. */
let held = false;
/** The programs the daemon's thread paused (flow control): a release leaves them paused. */
const paused = new Set<number>();

function holdAll(hold: boolean, gate?: Int32Array): void {
  held = hold;
  for (const [id, pty] of ptys) if (!paused.has(id)) hold ? pty.pause() : pty.resume();
  if (!hold) return;
  const exits: { pid: number; exit: ProgramExit }[] = [];
  const input: { pid: number; data: Uint8Array }[] = [];
  for (const pty of ptys.values()) {
    if (!(pty instanceof NativePty || pty instanceof AdoptedPty)) continue;
    const exit = pty.exitStatus();
    if (exit) exits.push({ pid: pty.pid, exit });
    const data = reactor?.queued(pty.fd);
    if (data) input.push({ pid: pty.pid, data });
  }
  post({ t: "held", exits, input });
  // Until the release, or the exec that ends this image: nothing of this thread runs, Bun's reaping
  // of the programs included, so one that ends now stays a zombie for the next image to reap.
  if (gate) Atomics.wait(gate, 0, 0);
}

self.onmessage = (ev: MessageEvent<ToPtyWorker>) => {
  const m = ev.data;
  if (m.t === "init") {
    ledger = new FdLedger(m.fds);
    if (libc && m.wakeFd !== null) reactor = new PtyReactor(libc, m.wakeFd);
    return;
  }
  if (m.t === "screen") return screens.handle(m.m);
  if (m.t === "text") return wantText(m.id, m.on);
  if (m.t === "feed") {
    if (m.screen === null) feeds.delete(m.id);
    else feeds.set(m.id, m.screen);
    return;
  }
  if (m.t === "hold") return holdAll(true, m.gate);
  if (m.t === "release") return holdAll(false);
  if (m.t === "spawn" || m.t === "adopt") {
    const id = m.id;
    if (held) return post({ t: "failed", id, message: "the daemon is being replaced; try again in a moment" });
    taps.set(id, new VtTap({ debugBuffer: m.debugBuffer, resume: { ...m.tap, end: m.at } }));
    wantText(id, m.text);
    if (m.t === "spawn" && m.tee !== undefined) tees.set(id, new TeeWriter(m.tee));
    if (m.log !== null) logs.set(id, new LogWriter(m.log, m.at, idleFiles, ledger));
    let pty: ProgramPty;
    try {
      const on: PtyEvents = {
        // Bun.Terminal may reuse the buffer it read into: the daemon gets a copy of its own.
        data: (data, ack) => deliver(id, reactor ? data : new Uint8Array(data), ack === true),
        drain: () => post({ t: "drain", id, taken: inputTaken.get(id) ?? 0 }),
        exit: (exitCode, signal) => {
          const tap = taps.get(id)!.save();
          forget(id);
          post({ t: "exit", id, exitCode, signal, tap });
        },
      };
      pty = m.t === "spawn" ? open(m.spec, on) : adopt(m, on);
    } catch (err) {
      forget(id);
      post({ t: "failed", id: m.id, message: (err as Error).message });
      return;
    }
    ptys.set(m.id, pty);
    // Said before anything that could fail: should this thread die from here on, the daemon's
    // thread knows the program to end and the master to close (pty-master.ts). An adopted master
    // was the daemon's thread's all along.
    if (m.t === "spawn" && pty.fd !== null) handOver(pty.fd, ledger);
    post({ t: "spawned", id: m.id, pid: pty.pid, fd: pty.fd });
    // Right after, ahead of the program's own output (read in a later round): the start resolves
    // once the marker is in the output (child.ts).
    if (m.t === "spawn" && m.prelude) deliver(id, m.prelude, false);
    // What the earlier image had queued goes first, counted as sent (the daemon's thread counts
    // it too, child.ts), so that no later write overtakes it.
    if (m.t === "adopt" && m.input) {
      inputTaken.set(id, m.input.length);
      pty.write(m.input);
    }
    return;
  }
  const pty = ptys.get(m.id);
  switch (m.t) {
    case "write":
      inputTaken.set(m.id, (inputTaken.get(m.id) ?? 0) + (typeof m.data === "string" ? Buffer.byteLength(m.data) : m.data.length));
      return pty?.write(m.data);
    case "resize":
      pty?.resize({ rows: m.rows, cols: m.cols });
      return post({ t: "resized", id: m.id });
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
