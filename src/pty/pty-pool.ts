// The pty workers (pty-worker.ts): a few threads that run the sessions' programs on PTYs and read
// their output, spread so each has about as many. The daemon's thread talks to them by messages.
// A worker starts when the first program is given to it: a daemon with no sessions runs none
// (each costs a few megabytes).
import { closeSync, writeSync } from "node:fs";
import { availableParallelism } from "node:os";
import { leastLoaded } from "../platform/least-loaded.ts";
import { ptyLibc } from "../platform/pty-libc.ts";
import type { Timers } from "../platform/timers.ts";
import { restartDelay, startWorker } from "../platform/worker-thread.ts";
import { TermdError } from "../terminal/errors.ts";
import { countScreens, HeldScreens, type ScreenSet } from "../terminal/held-screens.ts";
import type { RemoteScreen, ScreenChannel, ScreenOpening, ScreenOwner } from "../terminal/remote-screen.ts";
import { FdLedger } from "./fd-ledger.ts";
import { LeftoverWatch } from "./leftover-watch.ts";
import type { FromPtyWorker, ToPtyWorker } from "./pty-messages.ts";

export interface PtyHandler {
  message(m: FromPtyWorker): void;
  /** The worker died: the programs it ran lost their terminal. */
  lost(why: string): void;
}

/** A program's place in the pool: how to send it messages, and how to put a screen on its worker. */
export interface PtyLink {
  id: number;
  send(m: ToPtyWorker, transfer?: ArrayBuffer[]): void;
  /**
   * The hold under way (its number, new for each), or null: a message sent meanwhile waits behind
   * the worker's answer and is handled only if the workers are released; the exec drops it.
   */
  holding(): number | null;
  /** Opens a screen on the worker that runs this program (a "feed" message then feeds it the output as read). */
  openScreen(opening: ScreenOpening, owner: ScreenOwner): RemoteScreen;
}

interface Slot {
  worker: Worker;
  handlers: Map<number, PtyHandler>;
  /** The screens it holds; moved to its replacement if it dies, and rebuilt there by their owners. */
  screens: ScreenSet;
  /** The pipe a message is followed by a byte on, to wake the worker's poll; null where Bun.Terminal reads. */
  wake: [number, number] | null;
  /** The descriptors the worker holds that only it would close: closed here once it has died. */
  ledger: FdLedger;
  /** Waits for its answer to "hold" (daemon/handover.ts). */
  held?: (held: Held) => void;
  startedAt: number;
  /** The pause this worker was started after; the next early death doubles it. */
  delayMs: number;
  /** Why it died, once it did: it takes no programs until its replacement has started. */
  died?: string;
  /** Ended on purpose by crash(): replaced at once, however young. */
  crashed?: boolean;
}

/**
 * What the workers answer a hold with: the programs that ended before, as Bun reaped them (nothing
 * can reap them again), and the input each had queued and not written.
 */
export type Held = Pick<Extract<FromPtyWorker, { t: "held" }>, "exits" | "input">;

const ONE = new Uint8Array([1]);

export class PtyPool {
  /** null: not started yet. */
  private readonly slots: (Slot | null)[];
  private nextId = 1;
  private closed = false;
  private readonly screens = new HeldScreens();
  /** The stops under way of the programs it runs (child.ts), each waiting for what its program left behind. */
  readonly leftovers: LeftoverWatch;
  /** Set while held: the workers wait on it (their answer sent) until release() or close() opens it. */
  private gate: Int32Array | null = null;
  /** The hold under way (PtyLink's holding), and how many there were. */
  private holdId: number | null = null;
  private holds = 0;

  /**
   * @param timers the daemon's: the give-back of read buffers (child.ts) and a replacement's pause are among them
   * @param entry the workers' module (the test of a worker that cannot start gives another)
   */
  constructor(
    readonly timers: Timers,
    readonly size = availableParallelism(),
    private readonly entry = "pty/pty-worker.ts",
  ) {
    this.slots = new Array(Math.max(1, size)).fill(null);
    this.leftovers = new LeftoverWatch(timers);
  }

  private startSlot(delayMs = 0): Slot {
    const wake = ptyLibc()?.pipe() ?? null;
    const ledger = new FdLedger();
    const worker: Worker = startWorker<FromPtyWorker>(this.entry, {
      message: (m) => {
        if (m.t === "screen") return this.screens.get(m.m.id)?.receive(m.m, worker);
        if (m.t === "held") return slot.held?.(m);
        const h = slot.handlers.get(m.id);
        if (m.t === "exit" || m.t === "failed") slot.handlers.delete(m.id);
        h?.message(m);
        // The bytes first, then the state that shows them (pty-worker.ts).
        if (m.t === "data" && m.state) this.screens.get(m.state.id)?.receive(m.state, worker);
      },
      // Told once the thread is gone, after every message it posted: the exits it saw are known.
      died: (why) => {
        // Nothing polls the pipe any more, and nothing else closes what the worker held.
        this.closeWake(slot);
        for (const fd of ledger.held()) {
          try {
            closeSync(fd);
          } catch {}
        }
        this.died(slot, why);
      },
    });
    const slot: Slot = { worker, handlers: new Map(), screens: new Set(), wake, ledger, startedAt: performance.now(), delayMs };
    worker.postMessage({ t: "init", wakeFd: wake?.[0] ?? null, fds: ledger.buffer } satisfies ToPtyWorker);
    worker.unref();
    return slot;
  }

  /**
   * A worker ended: its programs end, lost (child.ts), and a fresh one takes its place and its
   * screens: at once if it had lived, else after the pause the screen pool makes too
   * (platform/worker-thread.ts's restartDelay), so a worker that cannot even start (a broken
   * build) is not restarted in a tight loop. Meanwhile its slot takes no programs: they go to the
   * other workers, or are refused while none runs (a program is given to a worker the moment it
   * is opened, and would wait on a thread that is not there).
   */
  private died(slot: Slot, why: string): void {
    const i = this.slots.indexOf(slot);
    if (this.closed || i < 0 || slot.died !== undefined) return;
    slot.died = why;
    console.error(`termd: a pty worker died (${why}); its ${slot.handlers.size} programs lost their terminal and were ended`);
    for (const h of slot.handlers.values()) h.lost(why);
    slot.handlers.clear();
    const delayMs = slot.crashed ? 0 : restartDelay(slot.startedAt, slot.delayMs);
    const start = () => {
      if (this.closed) return;
      const fresh = (this.slots[i] = this.startSlot(delayMs));
      this.screens.move(slot.screens, fresh.screens, this.channel(fresh));
    };
    if (delayMs === 0) start();
    else {
      console.error(
        `termd: the pty worker died ${Math.round(performance.now() - slot.startedAt)} ms after it started: the next starts in ${delayMs} ms`,
      );
      this.timers.after(delayMs, start);
    }
  }

  /** Registers a program on the least busy worker; returns how to send it messages. */
  open(handler: PtyHandler): PtyLink {
    if (this.closed) throw new Error("the pty workers are shut down");
    const slot = leastLoaded(
      this.slots,
      (s) => (s.died === undefined ? s.handlers.size : Number.POSITIVE_INFINITY),
      () => this.startSlot(),
    );
    if (slot.died !== undefined)
      throw new TermdError(
        "SPAWN_FAILED",
        `no pty worker runs: the last died as it started (${slot.died}), and the next starts after a pause`,
      );
    const id = this.nextId++;
    slot.handlers.set(id, handler);
    return {
      id,
      send: (m, transfer = []) => this.send(slot, m, transfer),
      holding: () => this.holdId,
      openScreen: (opening, owner) => this.screens.open(slot.screens, this.channel(slot), opening, owner),
    };
  }

  private send(slot: Slot, m: ToPtyWorker, transfer: ArrayBuffer[]): void {
    slot.worker.postMessage(m, transfer);
    this.wake(slot);
  }

  /** A byte on its pipe ends the worker's poll(2), to read its messages. */
  private wake(slot: Slot): void {
    if (!slot.wake) return;
    try {
      writeSync(slot.wake[1], ONE);
    } catch {} // EAGAIN: the pipe is full of wake-ups already.
  }

  private channel(slot: Slot): ScreenChannel {
    return { send: (m, transfer) => this.send(slot, { t: "screen", m }, transfer), token: slot.worker };
  }

  /**
   * Stops every worker reading its PTYs and starting programs, for a handover: resolves, once each
   * has answered, with the programs that ended already and the input they still queue. Every
   * message a worker sent before its answer has been handled by then (its messages arrive in order).
   */
  async hold(): Promise<Held> {
    const started = this.slots.filter((s): s is Slot => s !== null && s.died === undefined);
    const gate = (this.gate ??= new Int32Array(new SharedArrayBuffer(4)));
    this.holdId ??= ++this.holds;
    const answers = started.map((slot) => {
      const { promise, resolve } = Promise.withResolvers<Held>();
      slot.held = resolve;
      this.send(slot, { t: "hold", gate }, []);
      return promise;
    });
    const held = await Promise.all(answers);
    return { exits: held.flatMap((h) => h.exits), input: held.flatMap((h) => h.input) };
  }

  /** Undoes hold: the handover did not happen. */
  release(): void {
    this.openGate();
    for (const slot of this.slots) if (slot) this.send(slot, { t: "release" }, []);
  }

  /** The held workers go on (to their release, or to their end). */
  private openGate(): void {
    if (!this.gate) return;
    Atomics.store(this.gate, 0, 1);
    Atomics.notify(this.gate, 0);
    this.gate = null;
    this.holdId = null;
  }

  /** The screens each worker holds, parked ones included (a worker not started yet holds none). */
  screenInfo(): { index: number; screens: number; parked: number }[] {
    return this.slots.map((s, index) => ({ index, ...countScreens(s?.screens) }));
  }

  private closeWake(slot: Slot): void {
    if (!slot.wake) return;
    for (const fd of slot.wake) closeSync(fd);
    slot.wake = null;
  }

  /** Ends a worker where it stands, as a crash would. */
  private end(slot: Slot): void {
    slot.worker.terminate();
    // A worker waiting in poll(2) ends once that returns: wake it. The pipe stays open: closing
    // it under a poll would not wake it; it is closed once the worker has exited.
    this.wake(slot);
  }

  /**
   * Ends worker `index` as a crash would (but its replacement starts at once, however young it
   * was), and resolves once the replacement has taken over. For the test of a worker's death
   * (test/pty-worker-death.test.ts): nothing outside the process reaches it.
   */
  crash(index: number): Promise<void> {
    const slot = this.slots[index];
    if (!slot) return Promise.resolve();
    const { promise, resolve } = Promise.withResolvers<void>();
    slot.worker.addEventListener("close", () => resolve());
    slot.crashed = true;
    this.end(slot);
    return promise;
  }

  close(): void {
    this.closed = true;
    this.openGate();
    for (const s of this.slots) if (s) this.end(s);
  }
}
