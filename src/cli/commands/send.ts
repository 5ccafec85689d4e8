import { UsageError } from "../args.ts";
import { cliCommand, EXIT } from "../command.ts";
import { printJson } from "../format.ts";
import { sessionArg } from "./shared.ts";
import { str } from "../args.ts";
import type { InputInput } from "../../protocol/schemas.ts";
import { enterNote } from "../../protocol/submit-notes.ts";

const MOUSE_FLAGS = new Set(["click", "press", "release", "move", "drag", "scroll"]);
const INPUT_FLAGS = new Set(["text", "keys", "paste", "submit", "file", ...MOUSE_FLAGS]);
type MouseEvent = NonNullable<InputInput["mouse"]>;

/** Standard input, read once, however many flags name it (node:stream, so the Node stub has it too). */
let stdinText: Promise<string> | null = null;
function readStdin(): Promise<string> {
  return (stdinText ??= (async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk));
    return Buffer.concat(chunks).toString("utf8");
  })());
}

export default cliCommand({
  name: "send",
  summary: "type text, keys, pastes and mouse events into a session",
  args: "SESSION",
  json: true,
  help: [
    "Sends each --text, --keys, --paste, --submit and --file in the order given.",
    "A TEXT of - is standard input, read to its end (--text -, --paste -, --submit -).",
    "Mouse events are encoded for the mouse mode the program turned on (an error if it turned on none);",
    "ROW and COL count from 0, as the cursor in `termd screen --json` does.",
  ].join("\n"),
  flags: {
    text: { kind: "string", repeat: true, value: "TEXT", help: "the text as typed (no Enter added)" },
    keys: {
      kind: "string",
      repeat: true,
      value: "'KEY ...'",
      help: "key tokens separated by spaces: Enter Escape Tab Up F5 C-c M-x <C-w> Ctrl+Alt+Delete ...",
    },
    paste: { kind: "string", repeat: true, value: "TEXT", help: "a paste, bracketed when the program asked for bracketed paste" },
    submit: {
      kind: "string",
      repeat: true,
      value: "TEXT",
      help: "the text (typed; a bracketed paste when it has several lines and the program asked for that), then Enter once the screen settled showing it, at least 150 ms later; Enter again if the first changed nothing (a note on stderr says so, and when neither press changed the screen or the text never showed)",
    },
    file: {
      kind: "string",
      repeat: true,
      value: "PATH",
      help: "the file's contents as typed text (as --text); for input larger than an argument holds",
    },
    click: { kind: "string", repeat: true, value: "ROW,COL", help: "press and release a button there" },
    press: { kind: "string", repeat: true, value: "ROW,COL", help: "press a button there" },
    release: { kind: "string", repeat: true, value: "ROW,COL", help: "release a button there" },
    move: { kind: "string", repeat: true, value: "ROW,COL", help: "move the pointer there, no button down" },
    drag: { kind: "string", repeat: true, value: "ROW,COL:ROW,COL", help: "press at the first point, move to the second, release there" },
    scroll: { kind: "string", repeat: true, value: "ROW,COL:DIR[:N]", help: "N wheel notches (default 1) up, down, left or right there" },
    button: { kind: "string", value: "left|middle|right", help: "the button of every click, drag, press and release (default left)" },
    modifiers: { kind: "string", value: "shift,alt,ctrl", help: "keys held during every mouse event" },
  },
  async run(a, ctx) {
    const session = sessionArg(a);
    // Only the input flags, in order (global flags such as --json or --socket are not input). Loops,
    // not filter and map: a process's first use of an array builtin parses it (see format.ts).
    const items: typeof a.ordered = [];
    for (const f of a.ordered) if (INPUT_FLAGS.has(f.name)) items.push(f);
    if (items.length === 0)
      throw new UsageError("nothing to send: give --text, --keys, --paste, --submit, --file or a mouse event (--click …)");
    // Mouse flags are parsed up front as key tokens are below: a bad one must not leave half a command.
    const held = modifiers(str(a, "modifiers"));
    const button = buttonOf(str(a, "button"));
    const mouse = new Map<(typeof items)[number], MouseEvent>();
    const keys: string[] = [];
    for (const f of items)
      if (MOUSE_FLAGS.has(f.name)) mouse.set(f, mouseEvent(f.name, String(f.value), button, held));
      else if (f.name === "keys") keys.push(String(f.value));
    // Every key token is checked before anything is typed: a bad one must not leave half a command.
    // The key tables are loaded only then: `send --text` does not pay for them.
    if (keys.length > 0) {
      const { encodeKey } = await import("../../terminal/keys.ts");
      for (const value of keys) {
        for (const token of value.split(/\s+/).filter(Boolean)) {
          try {
            encodeKey(token, { applicationCursor: false });
          } catch (e) {
            throw new UsageError(`${(e as Error).message} (text goes in --text)`);
          }
        }
      }
    }
    const client = await ctx.client();
    let bytes = 0;
    for (const item of items) {
      const { name, value } = item;
      const event = mouse.get(item);
      if (event) {
        bytes += (await client.call("session.input", { session, mouse: event })).bytes;
        continue;
      }
      let v = String(value);
      if (name === "file") {
        const { readFileSync } = await import("node:fs");
        try {
          v = readFileSync(v, "utf8");
        } catch (err) {
          throw new UsageError(`cannot read --file ${v}: ${(err as Error).message}`);
        }
      } else if (v === "-" && name !== "keys") v = await readStdin();
      const params =
        name === "keys"
          ? { session, keys: v.split(/\s+/).filter(Boolean) }
          : name === "submit"
            ? { session, text: v, submit: true }
            : name === "file"
              ? { session, text: v }
              : { session, [name]: v };
      const r = await client.call("session.input", params);
      bytes += r.bytes;
      if (r.submit && !r.submit.shown && v.trim() !== "")
        ctx.err(`termd send: the submitted text never showed on the screen; Enter went after 3 s anyway`);
      if (r.submit && r.submit.enter_presses > 0) {
        const note = enterNote(r.submit);
        if (note) ctx.err(`termd send: ${note}`);
      }
    }
    if (ctx.json) printJson(ctx, { bytes });
    return EXIT.OK;
  },
});

/** "ROW,COL" (0-based) as a point. */
function point(text: string, flag: string): { row: number; col: number } {
  const m = /^(\d+),(\d+)$/.exec(text.trim());
  if (!m) throw new UsageError(`--${flag} needs ROW,COL (counting from 0), not ${JSON.stringify(text)}`);
  return { row: Number(m[1]), col: Number(m[2]) };
}

function buttonOf(text: string | undefined): "left" | "middle" | "right" {
  if (text === undefined) return "left";
  if (text === "left" || text === "middle" || text === "right") return text;
  throw new UsageError(`--button is left, middle or right, not ${JSON.stringify(text)}`);
}

function modifiers(text: string | undefined): { shift?: true; alt?: true; ctrl?: true } {
  const out: { shift?: true; alt?: true; ctrl?: true } = {};
  if (text === undefined) return out;
  for (const m of text
    .split(",")
    .map((x) => x.trim().toLowerCase())
    .filter(Boolean)) {
    if (m === "shift" || m === "alt" || m === "ctrl") out[m] = true;
    else throw new UsageError(`--modifiers takes shift, alt and ctrl separated by commas, not ${JSON.stringify(m)}`);
  }
  return out;
}

function mouseEvent(flag: string, text: string, button: "left" | "middle" | "right", held: object): MouseEvent {
  if (flag === "drag") {
    const [from, to, extra] = text.split(":");
    if (to === undefined || extra !== undefined) throw new UsageError(`--drag needs ROW,COL:ROW,COL, not ${JSON.stringify(text)}`);
    return { action: "drag", from: point(from!, flag), to: point(to, flag), button, ...held };
  }
  if (flag === "scroll") {
    const [at, direction, n, extra] = text.split(":");
    if (direction !== "up" && direction !== "down" && direction !== "left" && direction !== "right")
      throw new UsageError(`--scroll needs ROW,COL:up|down|left|right[:N], not ${JSON.stringify(text)}`);
    if (extra !== undefined || (n !== undefined && !/^[1-9]\d*$/.test(n)))
      throw new UsageError(`--scroll's N is a whole number of notches, in ${JSON.stringify(text)}`);
    return { action: "scroll", ...point(at!, flag), direction, count: n === undefined ? 1 : Number(n), ...held };
  }
  if (flag === "move") return { action: "move", ...point(text, flag), ...held };
  return { action: flag as "click" | "press" | "release", ...point(text, flag), button, ...held };
}
