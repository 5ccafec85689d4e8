// Session records in bun:sqlite under the state dir, so sessions are still listed (and their
// output readable) after the daemon restarts, whether it stopped cleanly or was killed.
import { Database } from "bun:sqlite";
import { chmodSync } from "node:fs";
import { join } from "node:path";
import type { SessionRecord } from "../session/record.ts";
import type { RecordStore } from "../session/store.ts";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS sessions (
  id TEXT PRIMARY KEY,
  record TEXT NOT NULL,
  created_at TEXT NOT NULL
)`;

export class SqliteRecords implements RecordStore {
  private readonly db: Database;
  private readonly upsert;
  private readonly remove;

  constructor(stateDir: string) {
    const path = join(stateDir, "termd.sqlite");
    this.db = new Database(path, { create: true, strict: true });
    // Records name commands, folders and environments: the owner's alone. SQLite gives its -wal
    // and -shm files the database file's mode; older ones, made 0644, are tightened too.
    for (const file of [path, `${path}-wal`, `${path}-shm`]) {
      try {
        chmodSync(file, 0o600);
      } catch {}
    }
    // A daemon that lost the start race may still hold the file a moment after it gave up the
    // state dir's lock (it exits without closing it): wait for it rather than fail "database is locked".
    this.db.exec("PRAGMA busy_timeout = 5000;");
    // WAL: a write per state change must not stall the event loop behind an fsync.
    this.db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;");
    this.db.exec(SCHEMA);
    this.upsert = this.db.prepare(
      "INSERT INTO sessions (id, record, created_at) VALUES ($id, $record, $created_at) ON CONFLICT(id) DO UPDATE SET record = excluded.record",
    );
    this.remove = this.db.prepare("DELETE FROM sessions WHERE id = $id");
  }

  save(r: SessionRecord): void {
    this.upsert.run({ id: r.id, record: JSON.stringify(r), created_at: r.created_at });
  }

  delete(id: string): void {
    this.remove.run({ id });
  }

  /** Lets go of the database file, so a daemon started next never finds it locked by this one. */
  close(): void {
    this.db.close(false);
  }

  all(): SessionRecord[] {
    const rows = this.db.query<{ record: string }, []>("SELECT record FROM sessions ORDER BY created_at").all();
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
}
