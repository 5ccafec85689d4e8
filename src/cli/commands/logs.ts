import { bool, num, UsageError } from "../args.ts";
import type { Client } from "../../client/client.ts";
import { deferred } from "../../client/deferred.ts";
import { cliCommand, EXIT } from "../command.ts";
import { sessionArg, writeOut } from "./shared.ts";

const CHUNK = 1024 * 1024;

async function read(client: Client, session: string, from: number, max = CHUNK): Promise<{ bytes: Uint8Array; to: number }> {
  const r = await client.call("session.output", { session, from, max_bytes: max });
  return { bytes: Buffer.from(r.base64, "base64"), to: r.to };
}

/** Offset where the last `lines` lines start, found by reading backwards from the end. */
async function tailStart(client: Client, session: string, end: number, lines: number): Promise<number> {
  let newlines = 0;
  for (let to = end; to > 0; ) {
    const from = Math.max(0, to - CHUNK);
    const { bytes } = await read(client, session, from, to - from);
    for (let i = bytes.length - 1; i >= 0; i--) {
      // A newline that ends the output does not start a line after it.
      if (bytes[i] === 0x0a && from + i !== end - 1 && ++newlines === lines) return from + i + 1;
    }
    to = from;
  }
  return 0;
}

async function exportCast(client: Client, session: string): Promise<number> {
  for (let from = 0; ; ) {
    const page = await client.call("session.cast", { session, from });
    const lines = page.header !== undefined ? [page.header, ...page.lines] : page.lines;
    if (lines.length > 0) await writeOut(lines.join("\n") + "\n");
    if (page.to === from) return EXIT.OK;
    from = page.to;
  }
}

export default cliCommand({
  name: "logs",
  summary: "print a session's output, as text or raw",
  args: "SESSION",
  help: "Prints what the program wrote, from the session's log file (every byte, also after a restart).",
  flags: {
    raw: { kind: "boolean", help: "the bytes as written, escape sequences and all (default: plain text)" },
    tail: { kind: "number", help: "only the last N lines" },
    from: { kind: "number", value: "OFFSET", help: "start at this byte offset" },
    follow: { kind: "boolean", short: "f", help: "keep printing new output until the session ends" },
    cast: { kind: "boolean", help: "the whole output as an asciicast v2 recording, timed as it happened (without the other flags)" },
  },
  async run(a, ctx) {
    const session = sessionArg(a);
    if (bool(a, "cast")) {
      if (a.ordered.some((f) => ["raw", "tail", "from", "follow"].includes(f.name))) throw new UsageError("--cast goes alone");
      return exportCast(await ctx.client(), session);
    }
    if (a.flags.has("tail") && a.flags.has("from")) throw new UsageError("give --tail or --from, not both");
    const client = await ctx.client();
    // The VT parser is loaded by the command that strips with it, not by every command at start-up.
    const strip = bool(a, "raw") ? null : new (await import("../../terminal/plain-text.ts")).PlainText();
    const tail = num(a, "tail");
    let from = num(a, "from") ?? 0;
    if (tail !== undefined) from = await tailStart(client, session, (await client.call("session.info", { session })).bytes_out, tail);
    const follow = bool(a, "follow");
    // Plain text of a tail may hold more lines than asked (the bytes' line ends counted raw): trim it.
    let held = tail !== undefined && strip && !follow ? "" : null;
    const emit = (bytes: Uint8Array): Promise<void> | void => {
      if (!strip) return writeOut(bytes);
      const text = strip.push(bytes);
      if (held !== null) held += text;
      else if (text) return writeOut(text);
    };
    const finish = async () => {
      if (!strip) return;
      const rest = strip.end();
      if (held !== null) {
        const lines = (held + rest).split("\n");
        const last = lines.at(-1) === "" ? lines.slice(-tail! - 1) : lines.slice(-tail!);
        held = null;
        return writeOut(last.join("\n"));
      }
      if (rest) await writeOut(rest);
    };

    if (!follow) {
      for (;;) {
        const r = await read(client, session, from);
        if (r.to === from) break;
        await emit(r.bytes);
        from = r.to;
      }
      await finish();
      return EXIT.OK;
    }
    // Following: from `from` on, replayed then live, in order, until the exit event.
    const { promise: ended, resolve } = deferred<void>();
    let chain = Promise.resolve();
    await client.subscribe({ session, events: ["output", "exit"], replay: from }, (e) => {
      if (e.type === "output") {
        const bytes = Buffer.from(String(e.data.base64), "base64");
        chain = chain.then(() => emit(bytes));
      } else if (e.type === "exit") void chain.then(finish).then(resolve);
    });
    await Promise.race([ended, client.closed]);
    return EXIT.OK;
  },
});
