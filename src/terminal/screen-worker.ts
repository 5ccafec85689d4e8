// A screen worker: a thread that holds the headless screens of some sessions and parses their
// output, so that parsing (the daemon's heaviest work) never holds the thread that moves bytes
// and answers requests. It is a second entrypoint of the compiled binary (scripts/build.ts).
import { Screen } from "./screen.ts";
import type { FromWorker, ToWorker } from "./screen-messages.ts";
import { faultText } from "./errors.ts";

declare const self: Worker;

const screens = new Map<number, { screen: Screen; offset: number; answering: boolean }>();
const post = (m: FromWorker) => self.postMessage(m);
const COLLECT_AFTER_MS = 2000;
let collect: Timer | undefined;

function report(id: number): void {
  const s = screens.get(id);
  if (s) post({ t: "state", id, offset: s.offset, state: s.screen.state() });
}

self.onmessage = (ev: MessageEvent<ToWorker>) => {
  const m = ev.data;
  switch (m.t) {
    case "open": {
      const entry = { screen: null as unknown as Screen, offset: 0, answering: true };
      entry.screen = new Screen({
        rows: m.rows,
        cols: m.cols,
        scrollback: m.scrollback,
        version: m.version,
        onReply: (data) => entry.answering && post({ t: "reply", id: m.id, data }),
      });
      screens.set(m.id, entry);
      return report(m.id);
    }
    case "write": {
      const s = screens.get(m.id);
      if (!s) return;
      if (m.clear) s.screen.clearAll();
      s.answering = m.answer;
      try {
        s.screen.writeSync(m.data);
      } catch (err) {
        // One screen's bad bytes must not take the others on this thread down with it.
        console.error(`termd: screen ${m.id}: parse failed: ${faultText(err)}`);
      }
      s.offset = m.end;
      return report(m.id);
    }
    case "resize":
      screens.get(m.id)?.screen.resize({ rows: m.rows, cols: m.cols });
      return report(m.id);
    case "snapshot": {
      const s = screens.get(m.id);
      if (!s) return post({ t: "snapshot", id: m.id, req: m.req, error: "no such screen" });
      try {
        post({ t: "snapshot", id: m.id, req: m.req, snapshot: s.screen.snapshot(m.format, m.scrollback) });
      } catch (err) {
        post({ t: "snapshot", id: m.id, req: m.req, error: (err as Error).message });
      }
      return;
    }
    case "close":
      screens.get(m.id)?.screen.dispose();
      screens.delete(m.id);
      // Parked screens are freed in batches: collect once they stop coming, so the memory goes back
      // to the system (an eden collection gave back nothing of 500 freed emulators). A full
      // collection holds this worker a few ms, once per batch.
      clearTimeout(collect);
      collect = setTimeout(() => Bun.gc(true), COLLECT_AFTER_MS);
      return;
  }
};
