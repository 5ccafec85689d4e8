// termd wait: one session.wait, sent again as often as it takes to last the --timeout asked for.
// A wait changes nothing, so it is safe to send again: across `termd daemon restart` (the call the
// restart cut fails with DAEMON_REPLACED; once the new image answers, the next is sent with what is
// left of the time), and past the protocol's longest timeout (--timeout 0 waits for good).
import type { ParamsOf } from "../../protocol/methods.ts";
import type { WaitResult } from "../../protocol/schemas.ts";
import { WAIT_TIMEOUT_MS } from "../../protocol/wait-limits.ts";
import type { Client } from "../../client/client.ts";
import { isReplaced } from "../../client/replaced-retry.ts";
import { bool, num, str } from "../args.ts";
import { cliCommand, EXIT } from "../command.ts";
import { printJson, rowsText } from "../format.ts";
import { sessionArg } from "./shared.ts";

/** The longest timeout one session.wait takes (the protocol's bound): a longer wait is several calls. */
const MAX_CALL_MS = 24 * 3600 * 1000;

/**
 * session.wait until it answers something other than a timeout or `deadline` (a Date.now() time;
 * Infinity: none) passes. A text or regex still on the screen when the call is sent again matches
 * it, so text that appeared while the daemon was being replaced is not missed (with `fresh`, the
 * screen at the new call is the one it must be new against).
 */
export async function waitUntil(
  client: Pick<Client, "call">,
  p: Omit<ParamsOf<"session.wait">, "timeout_ms">,
  deadline: number,
): Promise<WaitResult> {
  for (;;) {
    const timeout_ms = Math.max(0, Math.min(deadline - Date.now(), MAX_CALL_MS));
    try {
      const r = await client.call("session.wait", { ...p, timeout_ms });
      if (r.outcome !== "timeout" || Date.now() >= deadline) return r;
    } catch (err) {
      if (!isReplaced(err)) throw err;
      // The daemon was replaced under the call: once the new image answers (the client waits for
      // it, a while at most), the wait is sent again with the time left then; none left, it gets
      // timeout_ms 0, and answers the screen as it is (a timeout, unless a condition holds now).
      await client.call("system.ping");
    }
  }
}

export default cliCommand({
  name: "wait",
  summary: "wait for text, exit, activity or quiet",
  args: "SESSION",
  json: true,
  help: [
    "Waits until the first of the conditions holds, then prints the outcome",
    "(matched, exited, activity, settled, changed, command_done, prompt, or timeout).",
    "Exit code: 0 when a condition held (or the session exited and --exit was asked), 3 on timeout,",
    "1 when the session ended before any other condition held. A wait rides through `termd daemon restart`:",
    "it is sent again to the new daemon, within the same --timeout.",
  ].join("\n"),
  flags: {
    text: { kind: "string", value: "T", help: "until the screen shows T" },
    regex: { kind: "string", value: "RE", help: "until a row of the screen matches RE" },
    gone: { kind: "string", value: "T", help: "until the screen no longer shows T" },
    exit: { kind: "boolean", help: "until the program exits" },
    activity: { kind: "boolean", help: "until the program writes anything" },
    settle: { kind: "number", value: "MS", help: "until no output and no screen change for MS" },
    "changed-from": { kind: "string", value: "HASH", help: "until the screen's hash (termd screen --cursor) is no longer HASH" },
    "command-done": {
      kind: "boolean",
      help: "until the command typed at the shell's prompt is done (shell integration); prints command_done (code N): COMMAND, then what the command printed. It is the first command to finish after the session's last input (or --since)",
    },
    prompt: { kind: "boolean", help: "until the shell (with shell integration) has drawn its prompt after the last input (or --since)" },
    fresh: {
      kind: "string",
      value: "call|input",
      help: "--text and --regex count only where they did not match already, at the call or just before the session's last input",
    },
    since: { kind: "number", value: "OFFSET", help: "--command-done and --prompt count from this output offset instead of the last input" },
    timeout: {
      kind: "number",
      value: "MS",
      help: `give up after MS (default ${WAIT_TIMEOUT_MS}; 0: never): outcome timeout, exit code 3`,
    },
    screen: { kind: "boolean", help: "also print the screen" },
  },
  async run(a, ctx) {
    const timeout = num(a, "timeout") ?? WAIT_TIMEOUT_MS;
    const deadline = timeout === 0 ? Number.POSITIVE_INFINITY : Date.now() + timeout;
    const params = {
      session: sessionArg(a),
      text: str(a, "text"),
      regex: str(a, "regex"),
      gone: str(a, "gone"),
      exit: bool(a, "exit") || undefined,
      activity: bool(a, "activity") || undefined,
      settle_ms: num(a, "settle"),
      changed_from: str(a, "changed-from"),
      command_done: bool(a, "command-done") || undefined,
      prompt: bool(a, "prompt") || undefined,
      fresh: str(a, "fresh") as "call" | "input" | undefined,
      since: num(a, "since"),
    };
    const r = await waitUntil(await ctx.client(), params, deadline);
    if (ctx.json) printJson(ctx, r);
    else {
      let line = r.outcome;
      if (r.match) line += ` at ${r.match.row},${r.match.col}: ${r.match.text}`;
      if (r.outcome === "exited") line += r.signal ? ` (signal ${r.signal})` : ` (code ${r.exit_code})`;
      if (r.command) line += ` (code ${r.command.exit_code ?? "?"})${r.command.command !== null ? `: ${r.command.command}` : ""}`;
      ctx.out(line);
      if (r.command && r.command.output !== "") ctx.out(r.command.output);
      if (bool(a, "screen")) ctx.out(rowsText(r.screen.lines));
    }
    if (r.outcome === "timeout") return EXIT.TIMEOUT;
    if (r.outcome === "exited" && !bool(a, "exit")) return EXIT.FAILURE;
    return EXIT.OK;
  },
});
