// The daemon's thread, shared out in turns as tmux's command queue shares its: each connection with
// requests waiting gets at most TURN_REQUESTS of them or TURN_MS of the thread, then the next
// connection's turn comes; one with more waiting goes to the back of the line. Each turn is a
// macrotask of its own, so the sockets are read between turns: a fresh connection's request runs
// as it is read, after at most the one turn under way, not after the busy connections' backlogs.
import { clientLog } from "../session/client-log.ts";

/** Requests one connection may start in one turn. */
export const TURN_REQUESTS = 16;
/** The thread's time one connection may take in one turn, ms (a request under way is not cut short). */
export const TURN_MS = 1;

/** Something with work for the daemon's thread: a connection's requests, a big request's next piece. */
export interface TurnTaker {
  /** Works until `deadline` (performance.now() time) or TURN_REQUESTS; true: more waits, give it a later turn. */
  turn(deadline: number): boolean | Promise<boolean>;
}

export class Turns {
  /** Takers waiting for a turn, in the order they asked; each at most once. */
  private waiting = new Set<TurnTaker>();
  private scheduled = false;
  private running = false;

  /** `taker` has work: it gets a turn after those waiting now (asking again before then changes nothing). */
  want(taker: TurnTaker): void {
    this.waiting.add(taker);
    this.schedule();
  }

  /** Resolves in a later turn, after the others waiting now had theirs: how a long piece of work lets them go first. */
  later(): Promise<void> {
    const { promise, resolve } = Promise.withResolvers<void>();
    this.want({ turn: () => (resolve(), false) });
    return promise;
  }

  private schedule(): void {
    if (this.scheduled || this.running || this.waiting.size === 0) return;
    this.scheduled = true;
    setImmediate(() => void this.next());
  }

  /** One turn, the first taker's; the sockets are read before the next one's. */
  private async next(): Promise<void> {
    this.scheduled = false;
    this.running = true;
    const [taker] = this.waiting;
    this.waiting.delete(taker!);
    let more = false;
    try {
      more = await taker!.turn(performance.now() + TURN_MS);
    } catch (err) {
      clientLog.log("termd: a turn failed:", err);
    }
    // To the back: the others waiting go first.
    if (more) this.waiting.add(taker!);
    this.running = false;
    this.schedule();
  }
}

/** The daemon's thread's one scheduler: every connection of every transport takes its turns here. */
export const turns = new Turns();
