// Session records in bun:sqlite under the state dir, so sessions are still listed (and their
// output readable) after the daemon restarts, whether it stopped cleanly or was killed.
import type { Database, Statement } from "bun:sqlite";
import { chmodSync, existsSync } from "node:fs";
import { join } from "node:path";
import type { SessionRecord } from "../session/record.ts";
import type { RecordStore } from "../session/store.ts";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS sessions (
  id TEXT PRIMARY KEY,
  record TEXT NOT NULL,
  created_at TEXT NOT NULL
)`;

interface Opened {
  db: Database;
  upsert: Statement;
  remove: Statement;
}

/**
 * The database is opened at start when it exists (its records are restored), else when the first
 * record is saved: SQLite is ~1.5 MB of a daemon's memory that one which never ran a session
 * does not need.
 */
export class SqliteRecords implements RecordStore {
  private readonly path: string;
  private opened: Opened | null = null;

  constructor(stateDir: string) {
    this.path = join(stateDir, "termd.sqlite");
    if (existsSync(this.path)) this.open();
  }

  /** There is a database (opened at start): records to restore. */
  get exists(): boolean {
    return this.opened !== null;
  }

  private open(): Opened {
    if (this.opened) return this.opened;
    const path = this.path;
    const { Database } = require("bun:sqlite") as typeof import("bun:sqlite");
    const db = new Database(path, { create: true, strict: true });
    // Records name commands, folders and environments: the owner's alone. SQLite gives its -wal
    // and -shm files the database file's mode; older ones, made 0644, are tightened too.
    for (const file of [path, `${path}-wal`, `${path}-shm`]) {
      try {
        chmodSync(file, 0o600);
      } catch {}
    }
    // A daemon that lost the start race may still hold the file a moment after it gave up the
    // state dir's lock (it exits without closing it): wait for it rather than fail "database is locked".
    db.exec("PRAGMA busy_timeout = 5000;");
    // WAL: a write per state change must not stall the event loop behind an fsync.
    db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;");
    db.exec(SCHEMA);
    this.opened = {
      db,
      upsert: db.prepare(
        "INSERT INTO sessions (id, record, created_at) VALUES ($id, $record, $created_at) ON CONFLICT(id) DO UPDATE SET record = excluded.record",
      ),
      remove: db.prepare("DELETE FROM sessions WHERE id = $id"),
    };
    return this.opened;
  }

  save(r: SessionRecord): void {
    this.open().upsert.run({ id: r.id, record: JSON.stringify(r), created_at: r.created_at });
  }

  delete(id: string): void {
    // Not open: nothing was saved, so there is nothing to delete.
    this.opened?.remove.run({ id });
  }

  /** Lets go of the database file, so a daemon started next never finds it locked by this one. */
  close(): void {
    this.opened?.db.close(false);
  }

  all(): SessionRecord[] {
    return this.opened ? recordsIn(this.opened.db) : [];
  }
}

function recordsIn(db: Database): SessionRecord[] {
  const rows = db.query<{ record: string }, []>("SELECT record FROM sessions ORDER BY created_at").all();
  const out: SessionRecord[] = [];
  for (const row of rows) {
    try {
      out.push(JSON.parse(row.record) as SessionRecord);
    } catch {
      // A damaged row loses that one session's record, not the daemon.
    }
  }
  return out;
}

/**
 * The records a daemon would restore, read without writing anything: what a handover's dry run
 * (daemon/handover-record.ts) checks against while the daemon that owns them runs on.
 */
export function readRecords(stateDir: string): SessionRecord[] {
  const path = join(stateDir, "termd.sqlite");
  if (!existsSync(path)) return [];
  const { Database } = require("bun:sqlite") as typeof import("bun:sqlite");
  const db = new Database(path, { readonly: true });
  try {
    return recordsIn(db);
  } finally {
    db.close(false);
  }
}
