// One caller's wait (waits.ts): what is its own and no other member's of its group.
import type { WaitInput, WaitResult } from "../protocol/schemas.ts";
import type { ProgramStream } from "./stream.ts";
import type { WaitGroup } from "./wait-group.ts";
import { resultOf } from "./wait-result.ts";

/** What a waiter needs of the waits it is one of (Waits): the session, and to join and leave its group. */
export interface WaiterOwner {
  readonly s: ProgramStream;
  join(w: Waiter): void;
  leave(w: Waiter): void;
}

/** One caller's wait: its timeout, its caller's abort, its answer; what it waits for is its group's. */
export class Waiter {
  private timeout: Timer | undefined;
  /** Checked only once armed: a wait tied to an input counts from when the input is all written. */
  private armed = false;
  /** The group it is checked in, once armed. */
  group: WaitGroup | null = null;
  readonly result: Promise<WaitResult>;
  private resolve!: (r: WaitResult) => void;
  done = false;

  constructor(
    private readonly owner: WaiterOwner,
    readonly p: WaitInput,
    readonly abort: AbortSignal,
    /** The group this wait joins when armed. */
    readonly key: string,
    readonly makeGroup: () => WaitGroup,
  ) {
    this.result = new Promise((resolve) => (this.resolve = resolve));
  }

  /** Starts the clock and checks the screen as it is now. */
  arm(): void {
    if (this.done || this.armed) return;
    this.armed = true;
    this.timeout = setTimeout(() => this.timedOut(), this.p.timeout_ms);
    this.owner.join(this);
  }

  /** Its timeout, its caller's abort or cancel: answered alone, with the screen as it is. */
  timedOut(): void {
    if (this.done) return;
    const s = this.owner.s;
    this.finish(resultOf(s, "timeout", s.stream.textSnapshot()));
  }

  finish(result: WaitResult): void {
    if (!this.done) this.settle()(result);
  }

  /** Done: no timeout, out of its group; answered by calling what this returns. */
  settle(): (result: WaitResult) => void {
    this.done = true;
    clearTimeout(this.timeout);
    this.owner.leave(this);
    return this.resolve;
  }
}
