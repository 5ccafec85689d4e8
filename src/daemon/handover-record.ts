// The handover record: what a daemon replacing itself in place (handover.ts) tells the image that
// follows it, beside the descriptors that cross the exec open. Written to a file in the state dir
// (0600), its path in TERMD_HANDOVER; the next image reads it, checks it and deletes it. It names
// descriptors by number (the listening socket, the locks, each running program's PTY master) and
// the output offset each program's log ends at; everything else (names, commands, sizes, env) is
// in the session records (persistence.ts), and the screens are rebuilt from the logs. A build that
// does not know the record's `handover` version refuses it in the dry run (checkHandover), before
// the old daemon lets go.
import { readFileSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import * as v from "valibot";
import { BUILD, describeBuild } from "../protocol/version.ts";
import { logPathOf } from "../session/log-path.ts";
import { readRecords } from "./persistence.ts";
import { join } from "node:path";

/** The environment variable that carries the record's path across the exec. */
export const HANDOVER_ENV = "TERMD_HANDOVER";
/** The record's layout; bumped when it changes in a way an older reader would misread. */
export const HANDOVER_VERSION = 1;

const ExitSchema = v.nullable(v.object({ exitCode: v.nullable(v.number()), signal: v.nullable(v.string()) }));

const ProgramSchema = v.object({
  /** The session's id. */
  session: v.string(),
  pid: v.pipe(v.number(), v.integer(), v.minValue(1)),
  /** The PTY's master, open across the exec. */
  fd: v.pipe(v.number(), v.integer(), v.minValue(0)),
  /** The output offset of the program's next byte: its log's size. */
  output_end: v.pipe(v.number(), v.integer(), v.minValue(0)),
  /** How it ended, when the old image saw it end (Bun reaped it there). */
  exit: ExitSchema,
  /** Input it was sent that its terminal had no room for yet (base64): the next image writes it first. */
  input: v.optional(v.nullable(v.string()), null),
});

const RecordSchema = v.object({
  handover: v.literal(HANDOVER_VERSION),
  from: v.object({ pid: v.number(), version: v.string(), commit: v.string() }),
  socket_path: v.string(),
  state_dir: v.string(),
  /** The listening socket, open across the exec. */
  listener_fd: v.pipe(v.number(), v.integer(), v.minValue(0)),
  /** It is systemd's (socket activation): the file is systemd's to keep. */
  systemd_socket: v.boolean(),
  /** The socket's and the state dir's locks, held across the exec (file-lock.ts). */
  locks: v.array(v.object({ path: v.string(), fd: v.pipe(v.number(), v.integer(), v.minValue(0)) })),
  programs: v.array(ProgramSchema),
  /** The port HTTP was served on (`--http`): a `--http HOST:0` takes it again. */
  http_port: v.optional(v.nullable(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(65535))), null),
  /** The sessions' own sockets (session.create's `socket`), each listening across the exec. */
  session_sockets: v.optional(
    v.array(
      v.object({
        session: v.string(),
        path: v.string(),
        fd: v.pipe(v.number(), v.integer(), v.minValue(0)),
        dialect: v.nullable(v.string()),
        cleanup: v.nullable(v.picklist(["unlink", "keep", "rmdir"])),
      }),
    ),
    [],
  ),
});

export type HandoverRecord = v.InferOutput<typeof RecordSchema>;
export type HandedProgram = v.InferOutput<typeof ProgramSchema>;

export function handoverPath(stateDir: string): string {
  return join(stateDir, "handover.json");
}

export function writeHandover(path: string, record: HandoverRecord): void {
  writeFileSync(path, JSON.stringify(record), { mode: 0o600 });
}

/** The record at `path`, checked; throws with the reason (its version unknown to this build, a field wrong, unreadable). */
export function readHandover(path: string): HandoverRecord {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (err) {
    throw new Error(`cannot read the handover record ${path}: ${(err as Error).message}`);
  }
  const version = (raw as { handover?: unknown } | null)?.handover;
  if (version !== HANDOVER_VERSION)
    throw new Error(`the handover record is version ${String(version)}; ${describeBuild(BUILD)} reads version ${HANDOVER_VERSION}`);
  const parsed = v.safeParse(RecordSchema, raw);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    throw new Error(`the handover record is not one this build reads: ${v.getDotPath(issue) ?? "the record"}: ${issue.message}`);
  }
  return parsed.output;
}

/**
 * The record in TERMD_HANDOVER, read and deleted, and the variable removed (no session inherits
 * it); null when this process is no handover's next image. Throws when the record cannot be used.
 */
export function takeHandover(env: NodeJS.ProcessEnv = process.env): HandoverRecord | null {
  const path = env[HANDOVER_ENV];
  delete env[HANDOVER_ENV];
  if (!path) return null;
  try {
    return readHandover(path);
  } finally {
    try {
      unlinkSync(path);
    } catch {}
  }
}

/**
 * The dry run a handover's next binary makes before the old daemon lets go (`termd daemon
 * --check-handover FILE`): the record is one it reads, and the state agrees with it (each program's
 * session has a running record with its pid, and a log at least as long as the record says).
 * Returns the problems; none: it can take over. Reads only: the old daemon runs on meanwhile.
 */
export function checkHandover(record: HandoverRecord): string[] {
  const problems: string[] = [];
  let records: Map<string, { state: string; pid: number | null }>;
  try {
    records = new Map(readRecords(record.state_dir).map((r) => [r.id, r]));
  } catch (err) {
    return [`cannot read the session records in ${record.state_dir}: ${(err as Error).message}`];
  }
  for (const p of record.programs) {
    const r = records.get(p.session);
    if (!r) problems.push(`session ${p.session} has no record`);
    else if (r.state !== "running" || r.pid !== p.pid) problems.push(`session ${p.session}'s record is not its running program ${p.pid}`);
    let size = -1;
    try {
      size = statSync(logPathOf(join(record.state_dir, "logs"), p.session)).size;
    } catch {}
    if (size < p.output_end) problems.push(`session ${p.session}'s log is shorter than its output (${size} < ${p.output_end} bytes)`);
  }
  return problems;
}

/** What `termd daemon --check-handover FILE` prints: this build, the record's version it reads, and the problems found. */
export function dryRun(path: string): { handover: number; build: typeof BUILD; problems: string[] } {
  let problems: string[];
  try {
    problems = checkHandover(readHandover(path));
  } catch (err) {
    problems = [(err as Error).message];
  }
  return { handover: HANDOVER_VERSION, build: BUILD, problems };
}
