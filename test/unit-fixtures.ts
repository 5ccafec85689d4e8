// Fixtures of the unit tests beside the code (src/**/*.test.ts), which run a session's parts
// without a daemon: what a daemon gives its sessions (timers, worker pools), sessions spawned
// straight from Session, a fake of the output a reader takes from one, a program run by a pty
// worker with no session around it, and a fake of the native methods a dialect maps its messages
// onto.
import { afterAll } from "bun:test";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { NativeCaller } from "../src/dialects/dialect.ts";
import { Timers } from "../src/platform/timers.ts";
import { type Adoption, Child } from "../src/pty/child.ts";
import type { OutputRead } from "../src/pty/pty-messages.ts";
import { PtyPool } from "../src/pty/pty-pool.ts";
import { AnswerPacer } from "../src/session/answer-pacer.ts";
import type { MethodName, ParamsOf, ResultOf } from "../src/protocol/methods.ts";
import type { Size } from "../src/protocol/schemas.ts";
import { Session } from "../src/session/session.ts";
import type { SessionBase, StartSpec } from "../src/session/session-spec.ts";
import type { OutputStream } from "../src/session/stream.ts";
import { ScreenPool } from "../src/terminal/screen-pool.ts";
import { TapFacts, type TapEvent } from "../src/terminal/tap-facts.ts";
import { VtTap } from "../src/terminal/vt-tap.ts";

/** What a daemon makes and gives its sessions: its timers, its worker pools, its pacer of wait answers. */
export interface DaemonParts {
  timers: Timers;
  /** One screen worker, which never parks a screen. */
  pool: ScreenPool;
  /** One pty worker. */
  ptys: PtyPool;
  answers: AnswerPacer;
}

/** A daemon's parts for a test file, closed after its tests as the daemon closes them. */
export function daemonParts(): DaemonParts {
  const timers = new Timers();
  const parts = { timers, pool: new ScreenPool(timers, 1, 0), ptys: new PtyPool(timers, 1), answers: new AnswerPacer(timers) };
  afterAll(() => {
    timers.close();
    parts.pool.close();
    parts.ptys.close();
  });
  return parts;
}

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
  /** The daemon's parts they are given (a session made another way needs them too). */
  readonly parts: DaemonParts;
}

export function spawnedSessions(prefix: string): Sessions {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), `termd-${prefix}-`)));
  const sessions: Session[] = [];
  afterAll(() => {
    for (const s of sessions) s.dispose();
    rmSync(dir, { recursive: true, force: true });
  });
  // Closed after the sessions are disposed (hooks run in the order they were added).
  const parts = daemonParts();
  return {
    dir,
    parts,
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
          pool: parts.pool,
          answers: parts.answers,
        },
        { argv: command, env: opts.env ?? { PATH: process.env.PATH ?? "/usr/bin:/bin" }, shellIntegration: null, ptys: parts.ptys },
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

/** A program as the daemon's thread sees it, with its output gathered as text. */
export interface ChildRun {
  child: Child;
  output(): string;
  /** Resolves once the output contains `text`. */
  until(text: string): Promise<void>;
}

/** Text as it arrives, and a wait for a part of it. */
export class Gathered {
  text = "";
  private readonly waiters = new Set<() => void>();

  add(more: string): void {
    this.text += more;
    for (const w of [...this.waiters]) w();
  }

  /** Resolves once the text contains `part`. */
  until(part: string): Promise<void> {
    const { promise, resolve } = Promise.withResolvers<void>();
    const check = () => {
      if (!this.text.includes(part)) return;
      this.waiters.delete(check);
      resolve();
    };
    this.waiters.add(check);
    check();
    return promise;
  }
}

/**
 * Starts `command` in `cwd` on a worker of `pool`, `size` (5x40 by default), its output logged to
 * `log` (null: not logged); with `adopt`, takes that program over instead, as a handover's next image does.
 */
export async function startChild(
  pool: PtyPool,
  cwd: string,
  command: string[],
  log: string | null = null,
  adopt?: { program: Adoption; size: Size },
): Promise<ChildRun> {
  const out = new Gathered();
  const decoder = new TextDecoder();
  const child = await Child.spawn(
    {
      command,
      cwd,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      size: adopt?.size ?? { rows: 5, cols: 40 },
      term: "xterm-256color",
      at: 0,
      log,
      tap: new TapFacts().save(),
      debugBuffer: 10,
      text: false,
      onData: (read: OutputRead) => out.add(decoder.decode(read.data, { stream: true })),
    },
    pool,
    adopt?.program,
  );
  return { child, output: () => out.text, until: (part) => out.until(part) };
}

const encoder = new TextEncoder();

/**
 * What an output reader (StrippedOutput, TextOutput) takes of a session: its tap, fed first, and
 * every byte written; the tap's events go to `listener`, as a session's stream (Pipeline.on) hands them to a subscriber.
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

/** A native call a dialect made. */
export interface NativeCall {
  method: string;
  params: any;
}

/**
 * The daemon as a dialect sees it: every call is recorded and answered by `answer` (what it
 * returns, or throws as an RpcError would come back); what the dialect sends on its own is kept.
 */
export class FakeNative implements NativeCaller {
  readonly calls: NativeCall[] = [];
  readonly sent: unknown[] = [];
  private readonly states = new Map<string, unknown>();
  private readonly closing = new AbortController();
  readonly signal = this.closing.signal;

  constructor(
    private readonly answer: (call: NativeCall) => unknown,
    readonly session: string | undefined = undefined,
  ) {}

  /** The methods called, in order. */
  get methods(): string[] {
    return this.calls.map((c) => c.method);
  }

  call<M extends MethodName>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
    return this.run(method, params) as Promise<ResultOf<M>>;
  }

  async run(method: string, params: unknown): Promise<unknown> {
    const call = { method, params };
    this.calls.push(call);
    return this.answer(call);
  }

  sessionState<T>(id: string, init: () => T): T {
    if (!this.states.has(id)) this.states.set(id, init());
    return this.states.get(id) as T;
  }

  send(msg: unknown): void {
    this.sent.push(msg);
  }

  /** No dialect here ends its connection itself. */
  end(): void {}

  later(): Promise<void> {
    return Promise.resolve();
  }

  /** The connection closes. */
  close(): void {
    this.closing.abort();
  }
}
