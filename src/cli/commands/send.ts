import { readFileSync } from "node:fs";
import { UsageError } from "../args.ts";
import { cliCommand, EXIT } from "../command.ts";
import { printJson } from "../format.ts";
import { sessionArg } from "./shared.ts";
import { encodeKey } from "../../terminal/keys.ts";

const INPUT_FLAGS = new Set(["text", "keys", "paste", "submit", "file"]);

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
  summary: "type text, keys and pastes into a session",
  usage: "termd send SESSION [--text TEXT | --keys 'KEY ...' | --paste TEXT | --submit TEXT | --file PATH]... [--json]",
  help: [
    "Sends each --text, --keys, --paste and --submit in the order given.",
    "  --text TEXT     the text as typed (no Enter added)",
    "  --keys KEYS     key tokens separated by spaces: Enter Escape Tab Up F5 C-c M-x <C-w> Ctrl+Alt+Delete ...",
    "  --paste TEXT    a paste, bracketed when the program asked for bracketed paste",
    "  --submit TEXT   the text, then Enter once the program has settled (at least 150 ms later)",
    "  --file PATH     the file's contents as typed text (as --text); for input larger than an argument holds",
    "A TEXT of - is standard input, read to its end (--text -, --paste -, --submit -).",
  ].join("\n"),
  flags: {
    text: { kind: "string", repeat: true },
    keys: { kind: "string", repeat: true },
    paste: { kind: "string", repeat: true },
    submit: { kind: "string", repeat: true },
    file: { kind: "string", repeat: true },
  },
  async run(a, ctx) {
    const session = sessionArg(a);
    // Only the input flags, in order (global flags such as --json or --socket are not input).
    const items = a.ordered.filter((f) => INPUT_FLAGS.has(f.name));
    if (items.length === 0) throw new UsageError("nothing to send: give --text, --keys, --paste, --submit or --file");
    // Every key token is checked before anything is typed: a bad one must not leave half a command.
    for (const { name, value } of items) {
      if (name !== "keys") continue;
      for (const token of String(value).split(/\s+/).filter(Boolean)) {
        try {
          encodeKey(token, { applicationCursor: false });
        } catch (e) {
          throw new UsageError(`${(e as Error).message} (text goes in --text)`);
        }
      }
    }
    const client = await ctx.client();
    let bytes = 0;
    for (const { name, value } of items) {
      let v = String(value);
      if (name === "file") {
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
      bytes += (await client.call("session.input", params)).bytes;
    }
    if (ctx.json) printJson(ctx, { bytes });
    return EXIT.OK;
  },
});
