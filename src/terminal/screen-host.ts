// The screens one thread holds, driven by ToWorker messages: a screen worker's whole job, and a
// pty worker's for the sessions whose programs it runs (their screens are fed the output as it is
// read, with no trip through the daemon's thread; pty/pty-worker.ts).
import { faultText } from "./errors.ts";
import { Screen } from "./screen.ts";
import type { FromWorker, ToWorker } from "./screen-messages.ts";

const COLLECT_AFTER_MS = 2000;

interface Held {
  screen: Screen;
  /** The output offset just past the last byte written. */
  offset: number;
  answering: boolean;
}

export class ScreenHost {
  private readonly screens = new Map<number, Held>();
  private collect: Timer | undefined;

  constructor(private readonly post: (m: FromWorker) => void) {}

  report(id: number): void {
    const m = this.state(id);
    if (m) this.post(m);
  }

  /** Screen `id`'s state, as a message; `fed`: it follows output its thread wrote (writeAt). */
  state(id: number, fed = false): Extract<FromWorker, { t: "state" }> | null {
    const s = this.screens.get(id);
    if (!s) return null;
    let state: ReturnType<Screen["state"]>;
    try {
      state = s.screen.state();
    } catch (err) {
      // As a parse that fails: one screen must not take the thread, and the others, down.
      console.error(`termd: screen ${id}: its state could not be read: ${faultText(err)}`);
      return null;
    }
    const m: Extract<FromWorker, { t: "state" }> = { t: "state", id, offset: s.offset, state };
    if (fed) m.fed = true;
    return m;
  }

  /**
   * Writes output [start, start + data.length) into screen `id` if it shows the output up to
   * `start` exactly (else the daemon's thread sends it, in order); true when it did. The caller
   * hands the state (`fed`) on with the bytes.
   */
  writeAt(id: number, data: Uint8Array, start: number): boolean {
    const s = this.screens.get(id);
    if (!s || s.offset !== start) return false;
    this.write(s, id, data, true);
    s.offset = start + data.length;
    return true;
  }

  private write(s: Held, id: number, data: Uint8Array, answer: boolean): void {
    s.answering = answer;
    try {
      s.screen.writeSync(data);
    } catch (err) {
      // One screen's bad bytes must not take the others on this thread down with it.
      console.error(`termd: screen ${id}: parse failed: ${faultText(err)}`);
    }
  }

  handle(m: ToWorker): void {
    switch (m.t) {
      case "open": {
        const entry: Held = { screen: null as unknown as Screen, offset: 0, answering: true };
        entry.screen = new Screen({
          rows: m.rows,
          cols: m.cols,
          scrollback: m.scrollback,
          version: m.version,
          onReply: (data) => entry.answering && this.post({ t: "reply", id: m.id, data }),
        });
        this.screens.set(m.id, entry);
        return this.report(m.id);
      }
      case "write": {
        const s = this.screens.get(m.id);
        if (!s) return;
        if (m.clear) s.screen.clearAll();
        this.write(s, m.id, m.data, m.answer);
        s.offset = m.end;
        return this.report(m.id);
      }
      case "resize":
        this.screens.get(m.id)?.screen.resize({ rows: m.rows, cols: m.cols });
        return this.report(m.id);
      case "snapshot": {
        const s = this.screens.get(m.id);
        if (!s) return this.post({ t: "snapshot", id: m.id, req: m.req, error: "no such screen" });
        try {
          this.post({ t: "snapshot", id: m.id, req: m.req, snapshot: s.screen.snapshot(m.format, m.scrollback, m.page) });
        } catch (err) {
          this.post({ t: "snapshot", id: m.id, req: m.req, error: (err as Error).message });
        }
        return;
      }
      case "close":
        this.screens.get(m.id)?.screen.dispose();
        this.screens.delete(m.id);
        // Parked screens are freed in batches: collect once they stop coming, so the memory goes
        // back to the system (an eden collection gave back nothing of 500 freed emulators). A full
        // collection holds this thread a few ms, once per batch.
        clearTimeout(this.collect);
        this.collect = setTimeout(() => Bun.gc(true), COLLECT_AFTER_MS);
        return;
    }
  }
}
