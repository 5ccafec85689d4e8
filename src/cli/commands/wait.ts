import { bool, num, str } from "../args.ts";
import { cliCommand, EXIT } from "../command.ts";
import { printJson, rowsText } from "../format.ts";
import { sessionArg } from "./shared.ts";

export default cliCommand({
  name: "wait",
  summary: "wait for text, exit, activity or quiet",
  args: "SESSION",
  json: true,
  help: [
    "Waits until the first of the conditions holds, then prints the outcome",
    "(matched, exited, activity, settled, changed, command_done, prompt, or timeout).",
    "Exit code: 0 when a condition held (or the session exited and --exit was asked), 3 on timeout,",
    "1 when the session ended before any other condition held.",
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
    timeout: { kind: "number", value: "MS", help: "give up after MS (default 10000): outcome timeout, exit code 3" },
    screen: { kind: "boolean", help: "also print the screen" },
  },
  async run(a, ctx) {
    const r = await (await ctx.client()).call("session.wait", {
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
      timeout_ms: num(a, "timeout"),
    });
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
