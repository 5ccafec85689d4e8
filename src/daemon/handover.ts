// Replacing the daemon under its running programs (system.handover, `termd daemon restart`): the
// daemon execs the next binary in its own process, as nginx's binary upgrade and systemd's
// daemon-reexec do. The pid stays, so the programs stay its children; the listening socket, the
// locks and every PTY master cross the exec open (platform/exec.ts clears their FD_CLOEXEC), and
// the handover record (handover-record.ts) says which is which. Output written meanwhile waits in
// each PTY (nothing reads it; the kernel blocks a writer once the buffer is full) and is read by
// the next image, whose offsets go on from the logs' ends: no byte lost, none twice.
//
// Never worse than a restart that stops the sessions: before it lets go, the daemon runs the next
// binary's dry run over the record and the state (`BINARY daemon ... --check-handover FILE`); a
// binary that fails it, or is no termd at all, leaves this daemon serving, untouched, and the
// caller is told why. Only then are the pty workers held, the record written and the exec made;
// should the exec itself fail, the workers are released and the daemon serves on.
import { unlinkSync } from "node:fs";
import { execLibc } from "../platform/exec.ts";
import { listeningSocketFd } from "../platform/listening-socket.ts";
import { RpcError } from "../protocol/errors.ts";
import type { BuildInfo } from "../protocol/schemas.ts";
import { BUILD, describeBuild } from "../protocol/version.ts";
import type { Held, PtyPool } from "../pty/pty-pool.ts";
import type { LeftoverWatch } from "../pty/leftover-watch.ts";
import type { Timers } from "../platform/timers.ts";
import type { SessionStore } from "../session/store.ts";
import type { Peer } from "./peer.ts";
import { lastLinesWritten } from "./last-lines.ts";
import { HANDOVER_ENV, HANDOVER_VERSION, type HandoverRecord, handoverPath, writeHandover } from "./handover-record.ts";

/** How long the next binary's dry run may take (a compiled termd starts in well under a second). */
const CHECK_TIMEOUT_MS = 30_000;
/** How long the pty workers may take to stop reading (each answers between two rounds of its poll). */
const HOLD_TIMEOUT_MS = 10_000;

/** A handover checked and ready to be made. */
export interface HandoverPlan {
  /** The next binary's command (the binary, or the runtime and its script) and the daemon's own arguments after it. */
  argv: string[];
  /** The next build, as its dry run reported it. */
  to: BuildInfo;
  sessions: number;
}

/** What a handover needs of the daemon (daemon.ts): its paths, its sessions, its workers, its locks and sockets, its clients, its timers. */
export interface HandoverHost {
  readonly options: { socketPath: string; stateDir: string; listenFd?: number | null; farewellMs?: number };
  readonly store: Pick<SessionStore, "list">;
  readonly ptys: Pick<PtyPool, "hold" | "release"> & { readonly leftovers: Pick<LeftoverWatch, "killAll"> };
  readonly connections: Iterable<Pick<Peer, "farewell" | "end" | "written">>;
  /** Told to every client that comes while set (daemon.ts's addPeer), and the answer to every request that comes meanwhile. */
  farewell: RpcError | null;
  readonly httpPort: number | null;
  lockFiles(): { path: string; fd: number }[];
  sessionSocketList(): { session: string; path: string; dialect?: string; cleanup?: "unlink" | "keep" | "rmdir" }[];
  /** Its timers: what they have put off is written before the image that holds it goes. */
  readonly timers: Pick<Timers, "flush">;
}

const refuse = (why: string) => new RpcError("HANDOVER_REFUSED", `the daemon was not replaced and serves on: ${why}`);

/** How this process was run, past the command that runs termd: `daemon` and its flags. */
function daemonArgs(): string[] {
  return process.argv.slice(2);
}

/** The record of the daemon as it stands; `held`: programs that ended already and input not written yet (pty/pty-pool.ts's hold). */
function recordOf(daemon: HandoverHost, held: Held = { exits: [], input: [] }): HandoverRecord {
  const { socketPath, stateDir, listenFd } = daemon.options;
  const listener = listenFd ?? listeningSocketFd(socketPath);
  if (listener === null) throw refuse(`the socket listening on ${socketPath} was not found among the daemon's descriptors`);
  const ended = new Map(held.exits.map((e) => [e.pid, e.exit]));
  const unwritten = new Map(held.input.map((i) => [i.pid, i.data]));
  const programs: HandoverRecord["programs"] = [];
  for (const s of daemon.store.list()) {
    const child = s.program;
    if (!child) continue;
    // Ended while the session takes in its last output: nothing to hand over, and soon nothing to ask.
    if (!child.runs) throw refuse(`session ${s.name}'s program has just ended; try again in a moment`);
    const fd = child.masterFd;
    if (fd === null)
      throw refuse(
        `session ${s.name} runs on Bun's Terminal (termd opens its own PTYs on Linux only), which cannot cross an exec; \`termd daemon restart --stop-sessions\` stops the sessions and restarts the daemon`,
      );
    // The worker's queue, and what was sent to it once held: the exec drops both.
    const input = child.inputToCarry(unwritten.get(child.pid) ?? null);
    programs.push({
      session: s.id,
      pid: child.pid,
      fd,
      output_end: s.stream.output.end,
      exit: ended.get(child.pid) ?? null,
      input: input === null ? null : Buffer.from(input).toString("base64"),
    });
  }
  const sessionSockets: HandoverRecord["session_sockets"] = [];
  for (const sock of daemon.sessionSocketList()) {
    const fd = listeningSocketFd(sock.path);
    // One not found (its file replaced meanwhile) is left behind: the session runs on without it.
    if (fd !== null) sessionSockets.push({ ...sock, fd, dialect: sock.dialect ?? null, cleanup: sock.cleanup ?? null });
  }
  return {
    handover: HANDOVER_VERSION,
    from: { pid: process.pid, version: BUILD.version, commit: BUILD.commit },
    socket_path: socketPath,
    state_dir: stateDir,
    listener_fd: listener,
    systemd_socket: listenFd !== undefined && listenFd !== null,
    locks: daemon.lockFiles(),
    programs,
    http_port: daemon.httpPort,
    session_sockets: sessionSockets,
  };
}

/** The last non-empty line of a text, for a refusal. */
const lastLine = (text: string) =>
  text
    .trim()
    .split("\n")
    .filter((l) => l.trim() !== "")
    .at(-1) ?? "";

/**
 * Checks that `command` can take this daemon over: this platform can exec in place, every running
 * program is on a PTY termd owns, and the next binary's dry run over the record and the state
 * passes. Throws HANDOVER_REFUSED with the reason; the daemon is untouched either way.
 */
export async function planHandover(daemon: HandoverHost, command: string[]): Promise<HandoverPlan> {
  const libc = execLibc();
  if (typeof libc === "string")
    throw refuse(`${libc}; \`termd daemon restart --stop-sessions\` stops the sessions and restarts the daemon`);
  if (command.length === 0) throw refuse("no binary named");
  const record = recordOf(daemon);
  const path = handoverPath(daemon.options.stateDir);
  writeHandover(path, record);
  const argv = [...command, ...daemonArgs()];
  try {
    return { argv, to: await runCheck(command, [...argv, "--check-handover", path]), sessions: record.programs.length };
  } catch (err) {
    // Refused: nothing is left of it.
    try {
      unlinkSync(path);
    } catch {}
    throw err;
  }
}

/** Runs the next binary's check (`check`) and returns the build it reports, or throws HANDOVER_REFUSED with what it said. */
async function runCheck(command: string[], check: string[]): Promise<BuildInfo> {
  let proc: ReturnType<typeof Bun.spawn<"ignore", "pipe", "pipe">>;
  try {
    proc = Bun.spawn(check, { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  } catch (err) {
    throw refuse(`cannot run ${command[0]}: ${(err as Error).message}`);
  }
  const timer = setTimeout(() => proc.kill("SIGKILL"), CHECK_TIMEOUT_MS);
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(timer);
  let answer: { handover?: number; build?: BuildInfo; problems?: string[] } | null = null;
  try {
    answer = JSON.parse(lastLine(out));
  } catch {}
  if (!answer?.build || answer.handover === undefined) {
    const said = lastLine(err) || lastLine(out);
    throw refuse(
      `${command.join(" ")} is not a termd that can take over (its check exited with code ${code}${said ? `: ${said.slice(0, 300)}` : ""})`,
    );
  }
  if (code !== 0 || (answer.problems?.length ?? 0) > 0) {
    const why = answer.problems?.join("; ") || lastLine(err) || `its check exited with code ${code}`;
    throw refuse(`${describeBuild(answer.build)} cannot take over: ${why}`);
  }
  return answer.build;
}

/**
 * Makes the handover: holds the pty workers, writes the final record, keeps its descriptors open
 * across the exec and execs. Returns only when the exec failed, having undone all of it.
 */
export async function handOver(daemon: HandoverHost, plan: HandoverPlan): Promise<void> {
  const libc = execLibc();
  if (typeof libc === "string") return;
  const path = handoverPath(daemon.options.stateDir);
  /** Undoes the hold: this daemon serves on, and its clients, closed, connect again (the one that asked then finds it unchanged). */
  const serveOn = (why: string) => {
    daemon.farewell = null;
    daemon.ptys.release();
    try {
      unlinkSync(path);
    } catch {}
    console.error(`termd: the daemon was not replaced: ${why}; serving on`);
    for (const c of daemon.connections) c.end();
  };
  // The exec closes every connection with what is still queued for it: each client hears why
  // first, and gets what it was owed before (termd/client then resumes). Before the hold: a request
  // that came before the farewell runs on meanwhile (a dialect's operation, its native calls
  // included), and what it made before the hold is held and handed over with the rest.
  console.error(`termd: daemon ${process.pid} is being replaced by ${describeBuild(plan.to)}: its clients are told first`);
  const goodbye = new RpcError(
    "DAEMON_REPLACED",
    `the daemon is being replaced by ${describeBuild(plan.to)} in place (termd daemon restart); its sessions run on: connect again`,
  );
  // The socket still accepts meanwhile: a client that comes is told (a new connection in answer to
  // its first line), and nothing it asks runs.
  daemon.farewell = goodbye;
  let kept: number[] = [];
  // Whatever fails on the way (a record that cannot be written: a full disk; the exec) must not
  // leave the farewell said and the workers held, stopped for good.
  try {
    for (const c of daemon.connections) c.farewell(goodbye);
    await lastLinesWritten(daemon.connections, daemon.options.farewellMs);
    let timer: Timer | undefined;
    const late = new Promise<null>((r) => (timer = setTimeout(() => r(null), HOLD_TIMEOUT_MS)));
    const held = await Promise.race([daemon.ptys.hold(), late]);
    clearTimeout(timer);
    if (held === null) return serveOn(`a pty worker did not stop reading within ${HOLD_TIMEOUT_MS} ms`);
    const record = recordOf(daemon, held);
    writeHandover(path, record);
    // What the timing journals put off, before the image that holds it goes.
    daemon.timers.flush();
    kept = [
      record.listener_fd,
      ...record.locks.map((l) => l.fd),
      ...record.programs.map((p) => p.fd),
      ...record.session_sockets.map((s) => s.fd),
    ];
    for (const fd of kept) libc.keepAcrossExec(fd, true);
    const sessions = record.programs.length === 1 ? "1 running session" : `${record.programs.length} running sessions`;
    console.error(`termd: daemon ${process.pid} hands its ${sessions} over to ${describeBuild(plan.to)}`);
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
    env[HANDOVER_ENV] = path;
    // What a stop under way left waiting out its grace: the next image knows nothing of it (the
    // record carries running programs only), so it gets its SIGKILL now rather than never.
    daemon.ptys.leftovers.killAll();
    const why = libc.execve(plan.argv[0]!, plan.argv, env);
    // Still here: the exec failed.
    throw new Error(`execve ${plan.argv[0]} failed (${why})`);
  } catch (err) {
    for (const fd of kept) {
      try {
        libc.keepAcrossExec(fd, false);
      } catch {}
    }
    serveOn(err instanceof Error ? err.message : String(err));
  }
}
