// The timing journal beside each session's log: when each chunk of output arrived and when the
// size changed. With the log it is enough to export any session as an asciicast afterwards.
// One text line per event: "o <ms since start> <end offset>" or "r <ms> <cols> <rows>".
import { openSync } from "node:fs";
import type { Size } from "../protocol/schemas.ts";
import { SessionLineFile, type LineSource } from "./line-file.ts";
import type { LineFiles } from "./line-files.ts";
import type { SessionEvent } from "./stream.ts";

export function journalPathOf(logPath: string): string {
  return logPath.replace(/\.log$/, "") + ".timing";
}

export class TimingJournal extends SessionLineFile {
  constructor(path: string, session: LineSource & { readonly size: Size }, files: LineFiles) {
    super(path, openSync(path, "a", 0o600), session, files);
    this.resize(0, session.size);
  }

  protected onEvent(e: SessionEvent, ms: number): void {
    if (e.type === "output") this.later(`o ${Math.round(ms)} ${e.to}`);
    else if (e.type === "resize") this.resize(Math.round(ms), e.size);
  }

  private resize(ms: number, size: Size): void {
    this.line(`r ${ms} ${size.cols} ${size.rows}`);
  }
}

export type JournalEntry = { kind: "o"; ms: number; end: number } | { kind: "r"; ms: number; size: Size };

/** The journal's entries in order, lines put off included; a missing journal (a session from before it existed) is empty. */
export function readJournal(path: string, files: LineFiles): JournalEntry[] {
  const out: JournalEntry[] = [];
  for (const line of (files.read(path) ?? "").split("\n")) {
    const [kind, a, b, c] = line.split(" ");
    if (kind === "o" && b !== undefined) out.push({ kind, ms: Number(a), end: Number(b) });
    else if (kind === "r" && c !== undefined) out.push({ kind, ms: Number(a), size: { cols: Number(b), rows: Number(c) } });
  }
  return out;
}
