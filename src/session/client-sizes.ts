// The sizes of the terminals attached to one session. While any are attached the session takes
// the smallest rows and the smallest columns among them, as tmux does, so every one can show it
// all; while the holder has one, the holder's (a watcher does not shrink it).
import type { Size } from "../protocol/schemas.ts";

export class ClientSizes {
  private readonly sizes = new Map<object, Size>();

  constructor(
    /** Who holds the session now (hold.ts's key), if anyone. */
    private readonly holder: () => object | null,
    /** Gives the session the size that fits. */
    private readonly apply: (size: Size) => void,
  ) {}

  /** Records a client's size, or forgets it (null: it left), and refits. */
  set(client: object, size: Size | null): void {
    if (size !== null) this.sizes.set(client, size);
    else if (!this.sizes.delete(client)) return;
    this.refit();
  }

  /** Applies the size that fits the clients now (none attached: the session keeps its size). */
  refit(): void {
    const size = this.fit();
    if (size) this.apply(size);
  }

  /** The size the session takes; null while no terminal is attached. */
  fit(): Size | null {
    if (this.sizes.size === 0) return null;
    const key = this.holder();
    const held = key ? this.sizes.get(key) : undefined;
    const all = held ? [held] : [...this.sizes.values()];
    return { rows: Math.min(...all.map((s) => s.rows)), cols: Math.min(...all.map((s) => s.cols)) };
  }
}
