// The sizes of the terminals attached to one session. While any are attached the session takes
// the smallest rows and the smallest columns among them, as tmux does, so every one can show it
// all; while the holder has one, the holder's (a watcher does not shrink it).
import type { Size } from "../protocol/schemas.ts";

/** The session the sizes are for: who holds it (hold.ts's key), whether it runs, and its resize. */
export interface Sized {
  readonly hold: { readonly key: object | null };
  readonly running: boolean;
  resize(size: Size): void;
}

export class ClientSizes {
  private readonly sizes = new Map<object, Size>();

  constructor(private readonly session: Sized) {}

  /** Records a client's size, or forgets it (null: it left), and refits. */
  set(client: object, size: Size | null): void {
    if (size !== null) this.sizes.set(client, size);
    else if (!this.sizes.delete(client)) return;
    this.refit();
  }

  /** Gives a running session the size that fits the clients now (none attached: it keeps its size). */
  refit(): void {
    const size = this.fit();
    if (size && this.session.running) this.session.resize(size);
  }

  /** The size the session takes; null while no terminal is attached. */
  fit(): Size | null {
    if (this.sizes.size === 0) return null;
    const key = this.session.hold.key;
    const held = key ? this.sizes.get(key) : undefined;
    const all = held ? [held] : [...this.sizes.values()];
    return { rows: Math.min(...all.map((s) => s.rows)), cols: Math.min(...all.map((s) => s.cols)) };
  }
}
