import { bool, num } from "../args.ts";
import { cliCommand, EXIT } from "../command.ts";
import { sessionArg } from "./shared.ts";
import { deferred } from "../../client/deferred.ts";

const CHUNK = 1024 * 1024;

function writeOut(bytes: Uint8Array): Promise<void> {
  return new Promise((resolve) => (process.stdout.write(bytes) ? resolve() : process.stdout.once("drain", resolve)));
}

export default cliCommand({
  name: "logs",
  summary: "print a session's raw output",
  usage: "termd logs SESSION [--from OFFSET] [--follow]",
  help: "Prints every byte the program wrote (from the log file), from --from (a byte offset, default 0).\n--follow keeps streaming new output until the session ends.",
  flags: { from: { kind: "number" }, follow: { kind: "boolean", short: "f" } },
  async run(a, ctx) {
    const session = sessionArg(a);
    const client = await ctx.client();
    let from = num(a, "from") ?? 0;
    if (!bool(a, "follow")) {
      for (;;) {
        const r = await client.call("session.output", { session, from, max_bytes: CHUNK });
        await writeOut(Buffer.from(r.base64, "base64"));
        if (r.to === r.from) break;
        from = r.to;
      }
      return EXIT.OK;
    }
    const { promise: ended, resolve } = deferred<void>();
    let chain = Promise.resolve();
    await client.subscribe({ session, events: ["output", "exit"], replay: from }, (e) => {
      if (e.type === "output") {
        const bytes = Buffer.from(String(e.data.base64), "base64");
        chain = chain.then(() => writeOut(bytes));
      } else if (e.type === "exit") chain.then(resolve);
    });
    await Promise.race([ended, client.closed]);
    return EXIT.OK;
  },
});
