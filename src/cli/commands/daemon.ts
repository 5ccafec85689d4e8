import { bool, num, parseDuration, str, strs, UsageError, type FlagSpec, type Parsed } from "../args.ts";
import { cliCommand, EXIT } from "../command.ts";
import { printJson } from "../format.ts";
import { noMoreArgs } from "./shared.ts";
import { defaultStateDir } from "../../protocol/paths.ts";
import { connect, type Client } from "../../client/client.ts";
import { startDaemon } from "../autostart.ts";
import { describeBuild } from "../../protocol/version.ts";
import { isDaemonUrl } from "../../client/daemon-url.ts";
import type { HttpSettings } from "../../server/daemon-host.ts";

const DEFAULT_TTL_MS = 24 * 3600 * 1000;
/** Each session keeps this many sequences at most: the log is for reading, not recording. */
const MAX_DEBUG_BUFFER = 100_000;
const MAX_WORKERS = 64;

/** What hosts a daemon in this process (server/daemon-host.ts), loaded only by `termd daemon` itself. */
type Host = typeof import("../../server/daemon-host.ts");

/** A --max-* limit: a whole number, at least 1. */
function limit(a: Parameters<typeof num>[0], flag: string): number | undefined {
  const n = num(a, flag);
  if (n !== undefined && (!Number.isInteger(n) || n < 1)) throw new UsageError(`--${flag} is a whole number, at least 1`);
  return n;
}

/** --http and its companions; they mean nothing without it. */
async function httpSettings(a: Parameters<typeof num>[0], host: Host): Promise<HttpSettings | undefined> {
  const listen = str(a, "http");
  const companions = ["allow-origin", "allow-host", "http-allow-files"].filter((f) => a.flags.has(f));
  if (listen === undefined) {
    if (companions.length > 0) throw new UsageError(`--${companions[0]} goes with --http HOST:PORT`);
    return undefined;
  }
  try {
    return {
      listen: host.parseListen(listen),
      allowOrigins: strs(a, "allow-origin"),
      allowHosts: strs(a, "allow-host"),
      allowFiles: bool(a, "http-allow-files"),
    };
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

function workers(a: Parameters<typeof num>[0], flag: string): number | undefined {
  const n = num(a, flag);
  if (n !== undefined && (!Number.isInteger(n) || n < 1 || n > MAX_WORKERS))
    throw new UsageError(`--${flag} is a whole number from 1 to ${MAX_WORKERS}`);
  return n;
}

/** The longest --farewell, 10 minutes: past 2^31-1 ms a timer fires at once, and no wait at all is what it would be. */
const MAX_FAREWELL_MS = 600_000;

function farewellMs(a: Parameters<typeof num>[0]): number | undefined {
  const n = num(a, "farewell");
  if (n !== undefined && n > MAX_FAREWELL_MS) throw new UsageError(`--farewell is a whole number of ms from 0 to ${MAX_FAREWELL_MS}`);
  return n;
}

const DAEMON_HELP = [
  "termd daemon          runs the daemon in the foreground (for systemd and containers); it stops",
  "                      every session and exits on SIGTERM or SIGINT",
];

const CONTROL_HELP = [
  "termd daemon stop     stops every session (SIGHUP and SIGTERM, then SIGKILL after --grace), then the daemon",
  "termd daemon status   prints the running daemon's build (version, commit, target, Bun), pid, uptime",
  "                      and session counts (exit 1 if none answers)",
];

const RESTART_HELP = [
  "termd daemon restart  replaces the running daemon with this build (--binary PATH: that one) in",
  "                      place, keeping every running session running: same pids, same terminals,",
  "                      no signal, no byte lost, and the daemon's own flags. The daemon checks the",
  "                      new binary first and serves on, saying why, if it cannot take over.",
  "                      --stop-sessions: the old way, which says first what happens to the running",
  "                      sessions (they are stopped as by `daemon stop`, --grace MS; their output,",
  "                      final screens and records are kept), then starts this binary's daemon on",
  "                      the same socket and state dir, with the old daemon's flags; daemon flags",
  "                      given here (only with --stop-sessions) replace the old one's of that name,",
  "                      or are added",
];

/** `termd daemon restart`'s own flags. */
const RESTART_FLAGS: Record<string, FlagSpec> = {
  binary: { kind: "string", value: "PATH", help: "restart: the termd binary that takes over (default: this one)" },
  "stop-sessions": {
    kind: "boolean",
    help: "restart: stop the running sessions and start a new daemon, instead of handing them over in place",
  },
};

/** The flags of `termd daemon` itself, which runs one: the Node stub has none of them. */
const DAEMON_FLAGS: Record<string, FlagSpec> = {
  "state-dir": { kind: "string", value: "DIR", help: "session records and output logs (default $TERMD_STATE_DIR or ~/.local/state/termd)" },
  "stop-grace": {
    kind: "number",
    value: "MS",
    help: "grace between SIGHUP/SIGTERM and SIGKILL of session.stop and shutdown (default 5000)",
  },
  farewell: {
    kind: "number",
    value: "MS",
    help: "how long a stop or a restart waits, at most, for its clients to read the replies queued for them, and the reason, before the daemon goes: one wait for all (default 3000, at most 600000)",
  },
  ttl: { kind: "string", value: "DURATION", help: "how long ended sessions are kept: 90s, 30m, 24h, 2d (default 24h)" },
  "debug-buffer": { kind: "number", help: "unhandled escape sequences kept per session for `termd debug` (default 10)" },
  "screen-workers": { kind: "number", help: "threads that parse the sessions' screens (default: one per core)" },
  "screen-park": {
    kind: "number",
    value: "MS",
    help: "quiet time after which a session with little output has its screen parked, freeing its emulator until needed (default 5000; 0: never)",
  },
  "pty-workers": { kind: "number", help: "threads that run the sessions' programs and read their output (default: one per core)" },
  "max-sessions": {
    kind: "number",
    help: "sessions held at most, ended ones included (default 10000); past it session.create fails with LIMIT_REACHED",
  },
  "max-waits": {
    kind: "number",
    help: "waits one connection may have pending, session.wait calls and session.input calls with wait (default 4096); past it they fail with LIMIT_REACHED",
  },
  "max-subscriptions": {
    kind: "number",
    help: "sessions one connection may be subscribed to (default 10000); past it session.subscribe fails with LIMIT_REACHED",
  },
  "max-connections": {
    kind: "number",
    help: "connections served at once, over the sockets and HTTP (default 4096); past it a new one gets a LIMIT_REACHED error and is closed (HTTP: 503)",
  },
  "pid-file": {
    kind: "string",
    value: "PATH",
    help: "write the daemon's pid there while it runs (removed on exit), like the console server's server.pid",
  },
  http: {
    kind: "string",
    value: "HOST:PORT",
    help: "also serve the protocol over HTTP and WebSocket, and the attach page at / (a bare PORT binds 127.0.0.1; port 0 picks a free one, logged at start). Every request needs the token: TERMD_TOKEN, or `termd token`",
  },
  "allow-origin": {
    kind: "string",
    repeat: true,
    value: "URL",
    help: "with --http: an origin whose pages may also call it, e.g. https://ops.example.com (* allows any)",
  },
  "allow-host": {
    kind: "string",
    repeat: true,
    value: "NAME",
    help: "with --http: a Host name the HTTP server also answers to, e.g. a reverse proxy's public name (* allows any)",
  },
  "http-allow-files": {
    kind: "boolean",
    help: "with --http: let HTTP clients use session.create's record, log_path and socket, which write files on this machine (refused over HTTP otherwise)",
  },
  "check-handover": {
    kind: "string",
    value: "FILE",
    help: "check that this binary can take over the daemon described by the handover record FILE, print the answer as JSON and exit (run by the daemon itself during `termd daemon restart`)",
  },
};

/** A `termd daemon` flag a restart carries over: all but the state dir, which it names on its own. */
const carried = (f: Parsed["ordered"][number]) => f.name in DAEMON_FLAGS && f.name !== "state-dir";

/**
 * The carried flags in `ordered` as a command line, one word each: what a daemon reports in
 * system.stats. A relative --pid-file is made absolute: the next daemon starts in "/".
 */
function daemonFlags(ordered: Parsed["ordered"]): string[] {
  return ordered.filter(carried).map((f) => {
    if (f.value === true) return `--${f.name}`;
    const value = f.name === "pid-file" && !String(f.value).startsWith("/") ? `${process.cwd()}/${f.value}` : f.value;
    return `--${f.name}=${value}`;
  });
}

/**
 * The flags the next daemon runs with: the old one's (`theirs`, as daemonFlags wrote them; undefined
 * from a build that does not report them), each replaced by the same flag given to the restart,
 * and those it did not have added.
 */
function restartFlags(theirs: string[] | undefined, given: Parsed["ordered"]): string[] {
  const mine = given.filter(carried);
  const kept = (theirs ?? []).filter((f) => !mine.some((g) => f === `--${g.name}` || f.startsWith(`--${g.name}=`)));
  return [...kept, ...daemonFlags(mine)];
}

const GRACE: FlagSpec = {
  kind: "number",
  value: "MS",
  help: "stop and restart: how long the sessions get between SIGTERM and SIGKILL (default: the daemon's --stop-grace)",
};

/** Stops the daemon `client` is connected to and returns once its process is gone (at most 5 s after it closes the connection). */
async function stopDaemon(client: Client, socketPath: string, graceMs: number | undefined): Promise<{ gone: boolean; pid: number }> {
  const { pid } = await client.call("system.ping");
  await client.call("system.shutdown", { grace_ms: graceMs });
  await client.closed;
  // Return once the process is gone, so a script can start a new daemon right after.
  // (A remote daemon's pid is not one of this machine's.)
  if (isDaemonUrl(socketPath)) return { gone: true, pid };
  const { alive } = await import("../../platform/alive.ts");
  for (let i = 0; i < 500 && alive(pid); i++) await new Promise((r) => setTimeout(r, 10));
  return { gone: !alive(pid), pid };
}

const plural = (count: number, one: string, many: string) => (count === 1 ? one : many);

/** What a restart does to the sessions, said before it acts. */
function restartNotice(
  stats: { pid: number; sessions: number; running: number } & Parameters<typeof describeBuild>[0],
  socketPath: string,
  graceMs: number | undefined,
): string {
  const who = `the daemon on ${socketPath} (pid ${stats.pid}, ${describeBuild(stats)})`;
  const ended = stats.sessions - stats.running;
  const kept =
    ended === 0 ? "" : ` ${plural(ended, "Its 1 ended session is kept as it is.", `Its ${ended} ended sessions are kept as they are.`)}`;
  if (stats.running === 0) return `termd daemon restart: ${who} has no running sessions.${kept}`;
  const running = plural(
    stats.running,
    "1 running session: restarting ends its program",
    `${stats.running} running sessions: restarting ends their programs`,
  );
  const grace = graceMs !== undefined ? `${graceMs} ms` : "the daemon's --stop-grace (5000 ms unless it was given)";
  const after = plural(
    stats.running,
    "Its output, final screen and record are kept: the new daemon lists it",
    "Their output, final screens and records are kept: the new daemon lists them",
  );
  return `termd daemon restart: ${who} has ${running} (SIGHUP and SIGTERM, then SIGKILL after ${grace}). ${after} as ended (termd ls, termd logs).${kept}`;
}

/** `load` brings what hosts the daemon in this process; the Node client stub has none and only stops / queries. */
export const daemonCommand = (load?: () => Promise<Host>) =>
  cliCommand({
    name: "daemon",
    // The Node stub cannot host a daemon: its help offers only what it can do.
    summary: load
      ? "run the daemon in the foreground, or stop / query it"
      : "stop or query the running daemon (the termd executable runs one)",
    args: load ? "[stop|restart|status]" : "stop|status",
    json: true,
    help: (load ? DAEMON_HELP : []).concat(CONTROL_HELP, load ? RESTART_HELP : []).join("\n"),
    flags: load ? { ...DAEMON_FLAGS, ...RESTART_FLAGS, grace: GRACE } : { grace: GRACE },
    async run(a, ctx) {
      const action = a.positional[0];
      noMoreArgs(a, 1);
      const check = str(a, "check-handover");
      if (check !== undefined && load) {
        const answer = (await load()).checkHandover(check);
        ctx.out(JSON.stringify(answer));
        return answer.problems.length === 0 ? EXIT.OK : EXIT.FAILURE;
      }
      if (action === "restart" && bool(a, "stop-sessions") && str(a, "binary") !== undefined)
        throw new UsageError("--binary names the build a handover execs; --stop-sessions starts this one's daemon instead");
      if (action === "restart" && !bool(a, "stop-sessions") && num(a, "grace") !== undefined)
        throw new UsageError("--grace is how long --stop-sessions gives the sessions; a restart that keeps them stops none");
      if (action === "restart" && load && !bool(a, "stop-sessions") && !isDaemonUrl(ctx.socketPath)) {
        // A handover runs the next image with the daemon's own argv: flags given here would be lost without a word.
        const given = daemonFlags(a.ordered);
        if (given.length > 0) {
          ctx.err(
            `termd daemon restart: a restart that keeps the sessions running keeps the daemon's own flags too, so ${given.join(" ")} would not take effect; \`termd daemon restart --stop-sessions ${given.join(" ")}\` restarts with them, stopping the running sessions`,
          );
          return EXIT.USAGE;
        }
        const { restartInPlace } = await import("./daemon-handover.ts");
        const code = await restartInPlace(ctx, str(a, "binary"));
        if (code !== null) return code;
      }
      if (action === "restart") {
        if (!load) {
          ctx.err("termd: this client cannot start a daemon; run the termd executable's `termd daemon restart`");
          return EXIT.FAILURE;
        }
        if (isDaemonUrl(ctx.socketPath))
          throw new UsageError(
            "termd daemon restart replaces a daemon on this machine: give it --socket PATH, not a URL (is TERMD_URL set?)",
          );
        const grace = num(a, "grace");
        let stateDir = defaultStateDir();
        let flags = restartFlags(undefined, a.ordered);
        let client: Client | undefined;
        try {
          client = await connect(ctx.socketPath);
        } catch {
          ctx.err(`termd daemon restart: no daemon answers on ${ctx.socketPath}; starting one`);
        }
        if (client) {
          const stats = { ...(await client.call("system.ping")), ...(await client.call("system.stats")) };
          stateDir = stats.state_dir ?? stateDir;
          flags = restartFlags(stats.flags, a.ordered);
          ctx.err(restartNotice(stats, ctx.socketPath, grace));
          if (stats.flags === undefined)
            ctx.err(
              `termd daemon restart: the old daemon does not say which flags it was started with (a build from before it did): the new one runs with ${flags.length ? flags.join(" ") : "none"}, those given here`,
            );
          const { gone, pid } = await stopDaemon(client, ctx.socketPath, grace);
          if (!gone) {
            ctx.err(`termd daemon restart: the old daemon (pid ${pid}) has not exited yet; not starting another`);
            return EXIT.FAILURE;
          }
        }
        const fresh = await startDaemon(ctx.socketPath, { stateDir, args: flags });
        const ping = await fresh.call("system.ping");
        fresh.close();
        ctx.out(
          `termd daemon restart: ${describeBuild(ping)} runs on ${ctx.socketPath} (pid ${ping.pid})${flags.length ? ` with ${flags.join(" ")}` : ""}`,
        );
        return EXIT.OK;
      }
      if (action === "stop" || action === "status") {
        let client: Client;
        try {
          client = await connect(ctx.socketPath);
        } catch {
          ctx.err(`termd daemon ${action}: no daemon answers on ${ctx.socketPath}`);
          return EXIT.FAILURE;
        }
        if (action === "status") {
          const [ping, stats] = await Promise.all([client.call("system.ping"), client.call("system.stats")]);
          if (ctx.json) printJson(ctx, { ...ping, ...stats, socket: ctx.socketPath });
          else
            ctx.out(
              `${describeBuild(ping)} pid ${ping.pid} up ${ping.uptime_s}s, ${stats.running}/${stats.sessions} sessions running, socket ${ctx.socketPath}`,
            );
          client.close();
          return EXIT.OK;
        }
        await stopDaemon(client, ctx.socketPath, num(a, "grace"));
        return EXIT.OK;
      }
      if (action !== undefined) throw new UsageError(`unknown daemon action ${action} (stop, restart, status)`);
      if (!load) {
        ctx.err("termd: this client cannot host a daemon; run the termd executable's `termd daemon`");
        return EXIT.FAILURE;
      }
      if (isDaemonUrl(ctx.socketPath))
        throw new UsageError("termd daemon runs a daemon on this machine: give it --socket PATH, not a URL (is TERMD_URL set?)");
      const debugBuffer = num(a, "debug-buffer");
      if (debugBuffer !== undefined && debugBuffer > MAX_DEBUG_BUFFER)
        throw new UsageError(`--debug-buffer is at most ${MAX_DEBUG_BUFFER}`);
      // Loaded here, by the command that needs them, not by every command at start-up.
      const [{ resolve }, host] = await Promise.all([import("node:path"), load()]);
      const opts = {
        // Absolute: sessions (their shell hooks, `termd` run inside them) start in other folders.
        socketPath: resolve(ctx.socketPath),
        stateDir: resolve(str(a, "state-dir") ?? defaultStateDir()),
        stopGraceMs: num(a, "stop-grace") ?? 5000,
        farewellMs: farewellMs(a),
        ttlMs: str(a, "ttl") !== undefined ? parseDuration(str(a, "ttl")!, "ttl") : DEFAULT_TTL_MS,
        debugBuffer,
        screenWorkers: workers(a, "screen-workers"),
        screenParkMs: num(a, "screen-park"),
        ptyWorkers: workers(a, "pty-workers"),
        maxSessions: limit(a, "max-sessions"),
        maxWaits: limit(a, "max-waits"),
        maxSubscriptions: limit(a, "max-subscriptions"),
        maxConnections: limit(a, "max-connections"),
        pidFile: str(a, "pid-file"),
        flags: daemonFlags(a.ordered),
        http: await httpSettings(a, host),
      };
      try {
        return await host.runDaemon(opts);
      } catch (err) {
        // A lost start race is an answer, not a fault: an autostarting client then uses the winner.
        if (!(err instanceof host.DaemonStartError && err.busy)) throw err;
        // A daemon answering on this socket (an autostarted one, often) is the one its clients use:
        // what to do instead. (One holding the state dir from another socket is named by the message.)
        const answering = await connect(opts.socketPath).then(
          (c) => (c.close(), true),
          () => false,
        );
        if (!answering) ctx.err(`termd daemon: ${err.message}`);
        else {
          const restart = [
            "termd daemon restart --stop-sessions",
            ...(a.flags.has("socket") ? [`--socket ${ctx.socketPath}`] : []),
            ...opts.flags,
          ].join(" ");
          ctx.err(
            `termd daemon: ${err.message}. To run one with this command's flags in its place: \`${restart}\` (it says first what happens to the running sessions); to run this one in the foreground: \`termd daemon stop\`, then this command again`,
          );
        }
        return err.held === "state dir" ? EXIT.STATE_DIR_HELD : EXIT.DAEMON_RUNNING;
      }
    },
  });
