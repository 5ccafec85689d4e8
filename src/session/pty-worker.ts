// A pty worker: a thread that runs programs on PTYs and reads their output. Bun reads a PTY until
// it has nothing more, so a program that writes faster than that keeps the reading thread busy
// for as long as 100 ms at a stretch: here that holds up only this thread, and the daemon's
// thread, which gets the output as messages, keeps answering everyone. A second entrypoint of the
// compiled binary (scripts/build.ts).
import { Pty } from "./pty.ts";
import type { FromPtyWorker, ToPtyWorker } from "./pty-messages.ts";

declare const self: Worker;

const ptys = new Map<number, Pty>();
const post = (m: FromPtyWorker, transfer: ArrayBuffer[] = []) => self.postMessage(m, transfer);

self.onmessage = (ev: MessageEvent<ToPtyWorker>) => {
  const m = ev.data;
  if (m.t === "spawn") {
    try {
      const pty = new Pty(m.spec, {
        // Bun may reuse the buffer it read into: the daemon gets a copy of its own.
        data: (data) => {
          const own = data.slice();
          post({ t: "data", id: m.id, data: own }, [own.buffer]);
        },
        drain: () => post({ t: "drain", id: m.id }),
        exit: (exitCode, signal) => {
          ptys.delete(m.id);
          post({ t: "exit", id: m.id, exitCode, signal });
        },
      });
      ptys.set(m.id, pty);
      post({ t: "spawned", id: m.id, pid: pty.pid });
    } catch (err) {
      post({ t: "failed", id: m.id, message: (err as Error).message });
    }
    return;
  }
  const pty = ptys.get(m.id);
  switch (m.t) {
    case "write":
      return pty?.write(m.data);
    case "resize":
      return pty?.resize({ rows: m.rows, cols: m.cols });
    case "pause":
      return pty?.pause();
    case "resume":
      return pty?.resume();
    case "signal":
      return pty?.signal(m.name);
    case "flags":
      return post({ t: "flags", id: m.id, req: m.req, flags: pty?.flags() ?? null });
  }
};
