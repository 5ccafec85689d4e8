// `interminai input`: bytes to the program, verbatim. From --password (a line read from this
// terminal with echo off, the app's prompt shown on stderr, sent with \r), else --text (after
// escape processing; stdin is then not read at all), else all of stdin.
import { SOCKET, type Subcommand, Failure } from "./args.ts";
import { call } from "./request.ts";
import { expandEscapes } from "./escapes.ts";
import { writeErr } from "../closed-stdout.ts";

async function readStdin(): Promise<string> {
  const bytes = await Bun.stdin.bytes();
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new Failure("Error: stream did not contain valid UTF-8");
  }
}

/** The line above the cursor and the cursor's line, so the user sees the app's own prompt. */
async function showPrompt(socket: string): Promise<void> {
  const data = await call(socket, { type: "OUTPUT", format: "ascii" });
  void writeErr("Type your secret or password and press Enter.\n");
  const lines = typeof data.screen === "string" ? data.screen.split("\n") : [];
  const row = (data.cursor as { row?: number } | undefined)?.row ?? 0;
  const prev = row > 0 ? lines[row - 1] : undefined;
  if (prev !== undefined && prev.trim() !== "") void writeErr(`${prev}\n`);
  const cur = lines[row];
  if (cur !== undefined && cur.trim() !== "") void writeErr(`${cur} `);
}

/**
 * One line from the terminal on stdin with echo off (raw mode, so the secret is never shown, also
 * when this terminal is itself a session's). Echo goes off before `prompt` runs: whoever types
 * as soon as the prompt shows must not be echoed. Backspace edits; Ctrl-C and Ctrl-D give up.
 */
async function readSecret(prompt: () => Promise<void>): Promise<string> {
  const stdin = process.stdin;
  stdin.setRawMode(true);
  try {
    await prompt();
  } catch (e) {
    stdin.setRawMode(false);
    throw e;
  }
  return new Promise((resolve, reject) => {
    let line = "";
    const done = (fn: () => void) => {
      stdin.off("data", onData);
      stdin.setRawMode(false);
      stdin.pause();
      void writeErr("\n");
      fn();
    };
    const onData = (chunk: Buffer) => {
      for (const ch of chunk.toString("utf8")) {
        if (ch === "\r" || ch === "\n") return done(() => resolve(line));
        if (ch === "\x03") return done(() => reject(new Failure("Error: Failed to read password: interrupted", 130)));
        if (ch === "\x04" && line === "") return done(() => reject(new Failure("Error: Failed to read password: end of input")));
        if (ch === "\x7f" || ch === "\b") line = [...line].slice(0, -1).join("");
        else if (ch === "\x15") line = "";
        else if (ch >= " ") line += ch;
      }
    };
    stdin.on("data", onData);
    stdin.resume();
  });
}

export const input: Subcommand = {
  name: "input",
  about: "Send input to running session",
  opts: [
    SOCKET,
    {
      long: "text",
      value: "TEXT",
      help: "Input text with escape sequences (alternative to stdin). Supports: \\n \\r \\t \\a \\b \\f \\v \\\\ \\e \\xHH",
    },
    { long: "password", help: "Read password from terminal with echo disabled. Automatically appends \\r (Enter) after input" },
  ],
  async run(a) {
    const socket = a.values.get("socket")!;
    let data: string;
    if (a.flags.has("password")) {
      // Only a terminal: never /dev/tty, which would block a caller that redirected stdin.
      if (!process.stdin.isTTY) throw new Failure("Error: Failed to read password (is stdin a terminal?)");
      data = (await readSecret(() => showPrompt(socket))) + "\r";
    } else if (a.values.has("text")) data = expandEscapes(a.values.get("text")!);
    else data = await readStdin();
    await call(socket, { type: "INPUT", data });
    return 0;
  },
};
