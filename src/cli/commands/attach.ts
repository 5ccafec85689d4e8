import { resolve } from "node:path";
import { bool, str, UsageError } from "../args.ts";
import { cliCommand, EXIT } from "../command.ts";
import { encodeKey } from "../../terminal/keys.ts";
import { sessionArg, writeOut } from "./shared.ts";
import { deferred } from "../../client/deferred.ts";
import type { EventMessage } from "../../protocol/schemas.ts";
import { RpcError } from "../../protocol/errors.ts";
import { ConnectionClosedError } from "../../client/client.ts";

/** Output events waiting for the terminal, past which the daemon is asked to wait. */
const BEHIND_MAX = 16;

// What attach leaves behind must be the user's own terminal: every mode a program may have
// switched on through the live stream is switched off again.
const RESTORE =
  "\x1b[?1049l" + // back to the main screen, as it was before attach
  "\x1b[0m\x1b[?25h\x1b[?1l\x1b>" + // attributes, cursor, cursor keys, keypad
  "\x1b[?2004l\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?1004l" + // paste, mouse, focus
  "\x1b[<u"; // kitty keyboard flags

/** Who holds a session this attach took over, as session.info's held_by shows it. */
async function holderName(): Promise<string> {
  const { hostname } = await import("node:os");
  const { userName } = await import("../../platform/user-name.ts");
  const user = userName();
  return `termd attach${user ? ` (${user}@${hostname()})` : ""}`;
}

/**
 * Refuses to attach a terminal to the session it runs in (TERMD_SESSION_ID is its id, on the same
 * daemon's socket): the session's output would be its own input's echo, growing forever. The id,
 * as a rename leaves it; TERMD_SESSION, its name when its program started, only where no id was set.
 */
function refuseNested(info: { id: string; name: string }, socketPath: string): void {
  const { TERMD_SESSION_ID: id, TERMD_SESSION: name, TERMD_SOCKET: socket } = process.env;
  if (!socket || resolve(socket) !== resolve(socketPath)) return;
  if (id ? id === info.id : name === info.id || name === info.name)
    throw new UsageError(
      `${info.name} is the session this terminal is in: attached to itself, its output would feed back forever (sessions should be nested with care; unset TERMD_SESSION_ID and TERMD_SESSION if it is wrong)`,
    );
}

export default cliCommand({
  name: "attach",
  summary: "use a session from this terminal (Ctrl-\\ detaches)",
  args: "SESSION",
  help: [
    "Shows the session's screen at once, then its live output; keys and window resizes go to the",
    "session. The detach key returns to this terminal, restored.",
    "Several terminals can attach at once: the session takes the size of the smallest.",
    "It stays attached through termd rename, termd restart and termd daemon restart; a key or",
    "resize the session refuses is said over the bottom row. Refused inside the session itself.",
  ].join("\n"),
  flags: {
    "read-only": { kind: "boolean", short: "r", help: "watch without typing" },
    "take-over": {
      kind: "boolean",
      help: "hold the session while attached: every other client (an agent's MCP server, another attach) gets SESSION_HELD for its input, in-shell commands and resizes until you detach, and the session keeps your terminal's size. Refused while someone else holds it",
    },
    "detach-key": { kind: "string", value: "KEY", help: "the key that detaches, any key token (default C-\\)" },
  },
  async run(a, ctx) {
    const target = sessionArg(a);
    if (!process.stdin.isTTY || !process.stdout.isTTY) throw new UsageError("attach needs a terminal on stdin and stdout");
    let detachByte: string;
    try {
      detachByte = encodeKey(str(a, "detach-key") ?? "C-\\", { applicationCursor: false });
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    const readOnly = bool(a, "read-only");
    const takeOver = bool(a, "take-over");
    if (readOnly && takeOver) throw new UsageError("--read-only and --take-over together: taking a session over is for typing into it");
    const client = await ctx.client();
    const info = await client.call("session.info", { session: target });
    refuseNested(info, ctx.socketPath);
    // Addressed by its id from here on, which a rename leaves alone (and a daemon restart, which
    // makes the subscriptions again); messages use its name as the events carry it now.
    const session = info.id;
    let name = info.name;
    const size = () => ({ rows: process.stdout.rows || 24, cols: process.stdout.columns || 80 });

    let chain = Promise.resolve();
    const { promise: finished, resolve: finish } = deferred<string>();
    /**
     * A line over the terminal's bottom row, as tmux's status line shows a message, until the
     * program draws that row again. In the output's order, between its writes. The cursor's save
     * (DECSC) is the terminal's one slot, which a program that saved its own loses.
     */
    const notice = (text: string) => {
      const { rows, cols } = size();
      const line = text.length < cols ? text : `${text.slice(0, cols - 2)}…`;
      chain = chain.then(() => writeOut(`\x1b7\x1b[${rows};1H\x1b[0;7m${line}\x1b[0m\x1b[K\x1b8`));
    };
    /** A key or a resize the daemon refused: said, or the attach ends when the session is gone. */
    const refused = (what: string) => (err: unknown) => {
      if (err instanceof ConnectionClosedError) return; // client.closed says it
      if (err instanceof RpcError && err.name === "SESSION_NOT_FOUND") return finish(`[${name} is gone: ${err.message}]`);
      // Between a restart's stop and its new run: the new run gets the size when it starts.
      if (what === "resize" && err instanceof RpcError && err.name === "SESSION_NOT_RUNNING") return;
      notice(`[${what} refused: ${(err as Error).message}]`);
    };
    const sendSize = () => void client.call("session.resize", { session, ...size() }).catch(refused("resize"));

    // Attach first (the session takes the smallest attached size), then paint the screen at
    // that size, then stream output and the exit from exactly the offset the painted screen
    // reflects (the exit only after every byte before it).
    let behind = 0;
    const onEvent = (e: EventMessage) => {
      name = e.session;
      if (e.type === "output") {
        const bytes = Buffer.from(String(e.data.base64), "base64");
        // Written in order after the painted screen; while the terminal is behind, the daemon waits.
        if (++behind === BEHIND_MAX) client.pause();
        chain = chain.then(async () => {
          await writeOut(bytes);
          if (behind-- === BEHIND_MAX) client.resume();
        });
      } else if (e.type === "exit") {
        const how = e.data.signal ? `signal ${e.data.signal}` : `code ${e.data.exit_code}`;
        // `termd restart`: the session runs its program again, and this terminal stays with it.
        if (e.data.restarting) notice(`[${name} exited (${how}): restarting]`);
        else void chain.then(() => finish(`[${name} exited (${how})]`));
      } else if (e.type === "state" && e.data.state === "running") {
        sendSize(); // the new run's terminal is this one's size, whatever the window did meanwhile
      }
    };
    const attachedAt = size();
    await client.subscribe(
      {
        session,
        events: ["state"],
        size: attachedAt,
        read_only: readOnly,
        strip_queries: true,
        ...(takeOver ? { take_over: true, holder: await holderName() } : {}),
      },
      onEvent,
    );
    const snap = await client.call("session.screen", { session, format: "ansi" });

    const onInput = (chunk: Buffer) => {
      const text = chunk.toString("latin1");
      const at = text.indexOf(detachByte);
      const keys = at >= 0 ? chunk.subarray(0, Buffer.byteLength(text.slice(0, at), "latin1")) : chunk;
      if (!readOnly && keys.length > 0)
        void client.call("session.input", { session, base64: keys.toString("base64") }).catch(refused("keys"));
      if (at >= 0) finish(`[detached from ${name}]`);
    };

    let message = `[detached from ${name}]`;
    let offResume = () => {};
    process.stdin.setRawMode(true);
    // The listener before the stream flows: a key typed while the screen is painted (someone who
    // sees it start to show) is read then, and a flowing stream with no listener drops it.
    process.stdin.on("data", onInput);
    process.stdin.resume();
    try {
      await writeOut("\x1b[?1049h\x1b[H\x1b[2J" + snap.ansi);
      await client.call("session.subscribe", { session, events: ["output", "exit"], replay: snap.offset });
      // From now on a window change is this terminal's size; one made while attaching is sent now.
      process.stdout.on("resize", sendSize);
      if (size().rows !== attachedAt.rows || size().cols !== attachedAt.cols) sendSize();
      // After `termd daemon restart`: the window may have changed while nobody heard it.
      offResume = client.onResume(sendSize);
      void client.closed.then(() => finish("[the daemon closed the connection]"));
      message = await finished;
      await chain;
      return EXIT.OK;
    } finally {
      offResume();
      process.stdin.off("data", onInput);
      process.stdout.off("resize", sendSize);
      process.stdin.setRawMode(false);
      process.stdin.pause();
      // One write: the message must land after the terminal is restored, not on the session's screen.
      await writeOut(`${RESTORE}${message}\r\n`);
    }
  },
});
