// The registry of sessions: ids, unique names, lookup by either, persistence of their records,
// eviction of ended ones after a TTL, and disposal. The only owner of Session objects.
import { closeSync, mkdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { excerpt, quoted, TermdError } from "../terminal/errors.ts";
import type { CreateInput } from "../protocol/schemas.ts";
import { writeError } from "../pty/disk-errors.ts";
import { Session } from "./session.ts";
import { screenPathOf } from "./pipeline.ts";
import { fromRecord, recordOf, type SessionRecord, type StartSettings } from "./record.ts";
import { journalPathOf, TimingJournal } from "./journal.ts";
import { Recorder } from "./recorder.ts";
import { openTee } from "../pty/tee.ts";
import { descriptorsUsedUp } from "./fd-limit.ts";
import { integrate } from "./shell-integration.ts";
import type { ScreenPool } from "../terminal/screen-pool.ts";
import type { PtyPool } from "../pty/pty-pool.ts";
import type { Timers } from "../platform/timers.ts";
import { AnswerPacer } from "./answer-pacer.ts";
import { LineFiles } from "./line-files.ts";
import type { Adoption } from "../pty/child.ts";
import type { SessionBase, StartSpec } from "./session-spec.ts";

/** Where records outlive the daemon (sqlite in the daemon; nothing in a unit test). */
export interface RecordStore {
  save(r: SessionRecord): void;
  delete(id: string): void;
  all(): SessionRecord[];
}

export interface StoreOptions {
  stateDir: string;
  /** Environment every session starts from (the daemon's own, normally). */
  baseEnv: Record<string, string>;
  records?: RecordStore;
  /** Size of each session's unhandled-sequence log (`termd daemon --debug-buffer`). */
  debugBuffer?: number;
  /** The daemon's timers: its sessions' line files and wait answers run on them, and close with them. */
  timers: Timers;
  /** The daemon's screen workers. */
  pool: ScreenPool;
  /** The daemon's pty workers. */
  ptys: PtyPool;
  /** Sessions the store holds at most, ended ones included (`termd daemon --max-sessions`). */
  maxSessions?: number;
  /** Told of every session forgotten (removed, evicted), after it is disposed. */
  onRemove?: (s: Session) => void;
}

/** SPAWN_FAILED unless `cwd` is a directory a program can start in. */
function checkDirectory(cwd: string): void {
  let isDir = false;
  try {
    isDir = statSync(cwd).isDirectory();
  } catch {}
  if (!isDir) throw new TermdError("SPAWN_FAILED", `cwd ${cwd} is not a directory`);
}

/**
 * What termd sets in a session's environment to say which session it is: its name when its program
 * started, and its id, which a rename leaves alone (`termd attach` inside it compares the id).
 */
function whoAmI(s: { id: string; name: string }): Record<string, string> {
  return { TERMD_SESSION: s.name, TERMD_SESSION_ID: s.id };
}

/** Sessions a daemon holds at most unless told otherwise: each costs a PTY, a few files and threads' time. */
export const DEFAULT_MAX_SESSIONS = 10_000;

export class SessionStore {
  private readonly byId = new Map<string, Session>();
  private readonly logDir: string;
  /** Where the shell hooks live (shell-integration.ts), and exec.run's requests to them. */
  private readonly hooksDir: string;
  /** Records a full disk kept remove() from deleting: deleted once a write succeeds again. */
  private readonly undeleted = new Set<string>();
  /**
   * The names and ids of sessions whose program is being started: taken from the moment create()
   * checked them, so a second create of the same name at the same time is refused, not doubled.
   */
  private readonly starting = new Set<string>();
  /** Each session's start settings, by id: what a restart starts its program with again. */
  private readonly starts = new Map<string, StartSettings>();
  /** The sessions' timing journals and recordings, what they put off written together (session.cast reads the journals). */
  readonly lineFiles: LineFiles;
  /** What each session is given of the daemon besides its record. */
  private readonly parts: Pick<SessionBase, "pool" | "answers" | "debugBuffer">;

  constructor(private readonly opts: StoreOptions) {
    this.logDir = join(opts.stateDir, "logs");
    this.hooksDir = join(opts.stateDir, "shell");
    this.lineFiles = new LineFiles(opts.timers);
    this.parts = { pool: opts.pool, answers: new AnswerPacer(opts.timers), debugBuffer: opts.debugBuffer };
  }

  /** Brings back the sessions an earlier daemon left: listed, readable, none running. */
  restore(): void {
    for (const r of this.opts.records?.all() ?? []) {
      if (this.byId.has(r.id)) continue;
      const { base, run, start } = fromRecord(r, this.logDir);
      const s = Session.restore({ ...base, ...this.parts }, run);
      s.meta = r.meta;
      this.byId.set(s.id, s);
      this.starts.set(s.id, start);
      if (r.state !== s.state) this.opts.records?.save(this.record(s));
      // Restarted later, it changes state again.
      this.keepRecord(s);
    }
  }

  private newId(): string {
    for (;;) {
      const id = crypto.randomUUID().replaceAll("-", "").slice(0, 8);
      if (!this.byId.has(id) && !this.findByName(id) && !this.starting.has(id)) return id;
    }
  }

  private findByName(name: string): Session | undefined {
    for (const s of this.byId.values()) if (s.name === name) return s;
    return undefined;
  }

  /** NAME_TAKEN unless `name` is free: not another session's name or id (lookups try ids first). */
  private checkFree(name: string, self?: Session): void {
    const holder = this.findByName(name) ?? this.byId.get(name);
    if (!holder || holder === self) return;
    // An ended session holds its name until it is removed: say how to free it.
    const free = holder.running ? "" : `; it has ended: \`termd rm ${excerpt(name)}\` (or \`termd start --replace\`) frees the name`;
    throw new TermdError("NAME_TAKEN", `a session named ${quoted(name)} exists already${free}`, { name: excerpt(name) });
  }

  /** Gives `s` a new name, kept in its record; its id, log and everything else stay. */
  rename(s: Session, name: string): void {
    this.checkFree(name, s);
    s.name = name;
    this.saveRecord(s);
  }

  async create(p: NonNullable<CreateInput>): Promise<Session> {
    const max = this.opts.maxSessions ?? DEFAULT_MAX_SESSIONS;
    if (this.byId.size >= max) {
      throw new TermdError(
        "LIMIT_REACHED",
        `the daemon holds ${this.byId.size} sessions, its most (--max-sessions ${max}); remove ended ones (termd rm) first`,
        { max_sessions: max },
      );
    }
    if (p.name !== undefined) this.checkFree(p.name);
    if (p.name !== undefined && this.starting.has(p.name)) {
      throw new TermdError("NAME_TAKEN", `a session named ${quoted(p.name)} is being started`, { name: excerpt(p.name) });
    }
    const id = this.newId();
    const name = p.name ?? id;
    this.starting.add(id).add(name);
    try {
      return await this.start(p, id, name);
    } finally {
      this.starting.delete(id);
      this.starting.delete(name);
    }
  }

  private async start(p: NonNullable<CreateInput>, id: string, name: string): Promise<Session> {
    let record: ReturnType<typeof Recorder.open> | null = null;
    try {
      if (p.record !== undefined) record = Recorder.open(p.record, this.lineFiles);
    } catch (err) {
      throw new TermdError("BAD_ARGUMENT", `cannot record to ${p.record}: ${(err as Error).message}`);
    }
    const env: Record<string, string> = { ...this.opts.baseEnv, ...p.env, ...whoAmI({ id, name }) };
    const command = p.command ?? [env.SHELL || "/bin/sh"];
    const cwd = p.cwd ?? env.HOME ?? "/";
    let hooks: ReturnType<typeof integrate>;
    try {
      // The state dir's folders a session needs (its log's, the shell hooks'): a full or read-only
      // disk fails the call naming the folder, before any program starts.
      mkdirSync(this.logDir, { recursive: true, mode: 0o700 });
      hooks = p.shell_integration === false ? null : integrate(command, env, this.hooksDir);
    } catch (err) {
      record?.cancel();
      throw new TermdError("SPAWN_FAILED", `cannot keep session ${excerpt(name)}'s files: ${writeError(err, this.opts.stateDir)}`);
    }
    // log_path opens before the program starts (a bad path fails the call); the session closes it once it has started.
    let tee: number | undefined;
    try {
      if (p.log_path !== undefined) tee = openTee(p.log_path, p.log_append);
    } catch (err) {
      record?.cancel();
      throw err;
    }
    let session: Session;
    try {
      checkDirectory(cwd);
      session = await Session.spawn(
        {
          id,
          name,
          command,
          cwd,
          createdAt: new Date(),
          size: { rows: p.rows ?? 24, cols: p.cols ?? 80 },
          scrollback: p.scrollback ?? 1000,
          term: p.term ?? "xterm-256color",
          logDir: this.logDir,
          ...this.parts,
          execTimeoutMs: p.exec_timeout_ms,
        },
        {
          argv: hooks?.argv ?? command,
          env: hooks ? { ...env, ...hooks.env } : env,
          shellIntegration: hooks?.kind ?? null,
          ...(hooks ? { hooksDir: this.hooksDir } : {}),
          ptys: this.opts.ptys,
          tee,
        },
      );
    } catch (err) {
      record?.cancel();
      if (tee !== undefined) closeSync(tee);
      throw descriptorsUsedUp(err, this.byId.size) ?? err;
    }
    this.starts.set(id, { env: { ...this.opts.baseEnv, ...p.env }, integrate: p.shell_integration !== false });
    // Before the first record is saved: a dialect's claim (meta.dialect) is in every one.
    session.meta = p.meta;
    const records = this.opts.records;
    let recording = false;
    try {
      // Both listen from before the first byte: output only arrives on a later turn of the loop.
      new TimingJournal(journalPathOf(session.stream.logPath), session.stream, this.lineFiles);
      record?.attach(session);
      recording = true;
      records?.save(this.record(session));
    } catch (err) {
      // A full disk: the call fails and no program is left running outside any session. SIGKILL is
      // only sent by then: the reply waits for the program to be gone (a loaded machine may take a
      // while to run it to its end).
      if (!recording) record?.cancel();
      const gone = session.program?.exited;
      session.dispose();
      await gone;
      this.starts.delete(id);
      this.removeFiles(session);
      throw (
        descriptorsUsedUp(err, this.byId.size) ??
        new TermdError("SPAWN_FAILED", `cannot keep session ${excerpt(name)}'s records: ${writeError(err, this.opts.stateDir)}`)
      );
    }
    this.byId.set(id, session);
    this.retryDeletes();
    this.keepRecord(session);
    return session;
  }

  /**
   * Runs an ended session's program again, as it was started: its command, cwd and environment
   * (with the hooks of shell integration, and TERMD_SESSION its name now). A running one is stopped first.
   */
  async restart(s: Session, graceMs: number): Promise<void> {
    // Made before the stop, whose exit tells subscribers a new run follows.
    const spec = this.startSpec(s, this.startOf(s));
    await s.restart(spec, graceMs);
    this.saveRecord(s);
  }

  /** What a session's program is started with again: its command, its environment, the shell hooks, TERMD_SESSION its name now. */
  private startSpec(s: { command: string[]; id: string; name: string }, start: StartSettings): StartSpec {
    const env: Record<string, string> = { ...(start.env ?? this.opts.baseEnv), ...whoAmI(s) };
    const hooks = start.integrate ? integrate(s.command, env, this.hooksDir) : null;
    return {
      argv: hooks?.argv ?? s.command,
      env: hooks ? { ...env, ...hooks.env } : env,
      shellIntegration: hooks?.kind ?? null,
      ...(hooks ? { hooksDir: this.hooksDir } : {}),
      ptys: this.opts.ptys,
    };
  }

  /**
   * Takes over, by session id, the running programs an earlier image of this daemon handed over
   * (daemon/handover.ts): their sessions run on as they were, from their records. Returns the ids
   * it could not take over (no running record, or the take-over failed: logged); restore() then
   * finds those lost.
   */
  async adopt(programs: Map<string, Adoption>): Promise<string[]> {
    const records = new Map((this.opts.records?.all() ?? []).map((r) => [r.id, r]));
    const failed: string[] = [];
    await Promise.all(
      [...programs].map(async ([id, program]) => {
        const r = records.get(id);
        if (r?.state !== "running") return void failed.push(id);
        const { base, start } = fromRecord(r, this.logDir, true);
        try {
          const s = await Session.adopt({ ...base, ...this.parts }, program, this.startSpec(base, start));
          s.meta = r.meta;
          this.byId.set(s.id, s);
          this.starts.set(s.id, start);
          new TimingJournal(journalPathOf(s.stream.logPath), s.stream, this.lineFiles);
          this.keepRecord(s);
        } catch (err) {
          console.error(`termd: session ${r.name}: its program could not be taken over: ${(err as Error).message}`);
          failed.push(id);
        }
      }),
    );
    return failed;
  }

  /** Saves the session's record whenever its state or size changes. */
  private keepRecord(s: Session): void {
    if (this.opts.records) s.stream.on((e) => (e.type === "state" || e.type === "resize") && this.saveRecord(s));
  }

  private startOf(s: Session): StartSettings {
    return this.starts.get(s.id) ?? { env: null, integrate: true };
  }

  private record(s: Session): SessionRecord {
    return recordOf(s, this.startOf(s));
  }

  private saveRecord(s: Session): void {
    try {
      this.opts.records?.save(this.record(s));
    } catch (err) {
      console.error(`termd: session ${s.name}: its record could not be saved: ${writeError(err, this.opts.stateDir)}`);
    }
  }

  /** By id first, then by name. */
  get(ref: string): Session {
    const s = this.byId.get(ref) ?? this.findByName(ref);
    if (!s) throw new TermdError("SESSION_NOT_FOUND", `no session ${quoted(ref)}`, { session: excerpt(ref) });
    return s;
  }

  list(): Session[] {
    return [...this.byId.values()];
  }

  /** Forgets a session: its record, its log, its screen. False when it was already gone (removed by another call meanwhile). */
  remove(s: Session): boolean {
    if (this.byId.get(s.id) !== s) return false;
    this.byId.delete(s.id);
    this.starts.delete(s.id);
    s.dispose();
    // The files first: on a full disk that frees the room the record's delete needs.
    this.removeFiles(s);
    // If it fails all the same the session is forgotten, and the delete is tried again once a
    // write succeeds (only a restart before that lists it again).
    try {
      this.opts.records?.delete(s.id);
    } catch (err) {
      this.undeleted.add(s.id);
      console.error(`termd: session ${s.name}: its record could not be deleted: ${writeError(err, this.opts.stateDir)}`);
    }
    this.opts.onRemove?.(s);
    return true;
  }

  /** Deletes the records a full disk kept (see remove), while deletes succeed. */
  private retryDeletes(): void {
    for (const id of this.undeleted) {
      try {
        this.opts.records?.delete(id);
      } catch {
        return;
      }
      this.undeleted.delete(id);
    }
  }

  private removeFiles(s: Session): void {
    for (const path of [s.stream.logPath, journalPathOf(s.stream.logPath), screenPathOf(s.stream.logPath)]) rmSync(path, { force: true });
  }

  /** Removes ended sessions whose end is older than `ttlMs`; returns how many. */
  evict(ttlMs: number, now = Date.now()): number {
    this.retryDeletes();
    let n = 0;
    for (const s of this.list()) {
      if (!s.running && s.endedAt && now - s.endedAt.getTime() >= ttlMs) {
        this.remove(s);
        n++;
      }
    }
    return n;
  }

  async stopAll(graceMs: number): Promise<void> {
    await Promise.all(this.list().map((s) => s.stop(graceMs)));
  }

  killAll(): void {
    for (const s of this.byId.values()) s.kill();
  }
}
