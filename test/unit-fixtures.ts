// Fixtures of the unit tests beside the code (src/**/*.test.ts), which run a session's parts
// without a daemon: sessions spawned straight from Session, and a fake of the output a reader
// takes from one.
import { afterAll } from "bun:test";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Session } from "../src/session/session.ts";
import type { SessionBase, StartSpec } from "../src/session/session-spec.ts";
import type { OutputStream } from "../src/session/stream.ts";
import type { TapEvent } from "../src/terminal/tap-facts.ts";
import { VtTap } from "../src/terminal/vt-tap.ts";

/** Sessions a test file spawns: `dir`, their cwd and log folder; each disposed, and `dir` removed, after the file's tests. */
export interface Sessions {
  readonly dir: string;
  /** A session running `command` in a PTY (its id and name `id`), by default 4x20 with 10 lines of scrollback and only PATH set. */
  spawn(
    id: string,
    command: string[],
    opts?: Partial<Pick<SessionBase, "size" | "scrollback">> & Partial<Pick<StartSpec, "env">>,
  ): Promise<Session>;
  /** Disposes `s` with the others (a session made another way, e.g. Session.restore). */
  keep(s: Session): Session;
}

export function spawnedSessions(prefix: string): Sessions {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), `termd-${prefix}-`)));
  const sessions: Session[] = [];
  afterAll(() => {
    for (const s of sessions) s.dispose();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    dir,
    async spawn(id, command, opts = {}) {
      const s = await Session.spawn(
        {
          id,
          name: id,
          command,
          cwd: dir,
          createdAt: new Date(),
          size: opts.size ?? { rows: 4, cols: 20 },
          scrollback: opts.scrollback ?? 10,
          term: "xterm-256color",
          logDir: dir,
        },
        { argv: command, env: opts.env ?? { PATH: process.env.PATH ?? "/usr/bin:/bin" }, shellIntegration: null },
      );
      sessions.push(s);
      return s;
    },
    keep(s) {
      sessions.push(s);
      return s;
    },
  };
}

const encoder = new TextEncoder();

/**
 * What an output reader (StrippedOutput, TextOutput) takes of a session: its tap, fed first, and
 * every byte written; the tap's events go to `listener`, as Session.on hands them to a subscriber.
 */
export class FakeOutput {
  listener: (e: TapEvent) => void = () => {};
  readonly tap = new VtTap({ onEvent: (e) => this.listener(e) });
  bytes = new Uint8Array(0);
  running = true;

  /** The program writes `s`; with `tap` false the tap does not see it (bytes it has not read yet). */
  write(s: string, tap = true): void {
    const data = encoder.encode(s);
    if (tap) this.tap.feed(data);
    const all = new Uint8Array(this.bytes.length + data.length);
    all.set(this.bytes);
    all.set(data, this.bytes.length);
    this.bytes = all;
  }

  readOutput(from: number, max: number): Uint8Array {
    return this.bytes.slice(from, from + max);
  }

  /** This, as the readers take it: they use only the members above. */
  get stream(): OutputStream {
    return this as unknown as OutputStream;
  }
}
