// Who has taken a session over. A person who takes over an agent's session must not have the agent
// typing under them: while one holder holds it, everyone else's input, in-shell commands and
// resizes are refused (the daemon's commands ask `check`). Only one holder at a time. The holder is
// an opaque key (the daemon's attached subscription), so the hold ends when that goes away.
import { TermdError } from "../terminal/errors.ts";

export interface HoldInfo {
  /** Who holds it, as they named themselves (e.g. "the browser page"), else "a connection". */
  held_by: string;
  /** When they took it over (ISO). */
  held_since: string;
}

interface Holder {
  key: object;
  by: string;
  since: Date;
}

export class Hold {
  private holder: Holder | null = null;

  constructor(
    /** The session held, named as it is now (a rename shows). */
    private readonly session: { readonly name: string },
    /** Told of every take and give back: the session emits a hold event and refits its size. */
    private readonly changed: (info: HoldInfo | null) => void,
  ) {}

  /** The holder's key, or null while nobody holds the session. */
  get key(): object | null {
    return this.holder?.key ?? null;
  }

  get info(): HoldInfo | null {
    return this.holder ? { held_by: this.holder.by, held_since: this.holder.since.toISOString() } : null;
  }

  /** Refuses `what` unless nobody holds the session or `key` does. */
  check(key: object | undefined, what: string): void {
    const h = this.holder;
    if (!h || h.key === key) return;
    const since = h.since.toISOString();
    throw new TermdError(
      "SESSION_HELD",
      `session ${this.session.name} is held by ${h.by} since ${since}: a person took it over, so ${what} from others is refused until they give it back; ` +
        `wait until session.info's held_by is null (or a hold event says so), or ask them to give it back`,
      { session: this.session.name, held_by: h.by, held_since: since },
    );
  }

  /** Takes the session for `key` (again: keeps the first time and the name it gave). */
  take(key: object, by: string | undefined): void {
    this.check(key, "a second take-over");
    if (this.holder) return;
    this.holder = { key, by: by ?? "a connection", since: new Date() };
    this.changed(this.info);
  }

  /** Gives the session back if `key` holds it. */
  give(key: object): void {
    if (this.holder?.key !== key) return;
    this.holder = null;
    this.changed(null);
  }
}
