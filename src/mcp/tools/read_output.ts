import * as v from "valibot";
import { plainText } from "../../terminal/plain-text.ts";
import { tool, text } from "../tool.ts";
import { Session } from "./params.ts";

/** Bytes read at most per call: output older than the last this many bytes is skipped, and said so. */
const MAX_BYTES = 256 * 1024;

export default tool({
  name: "read_output",
  title: "Read new output",
  annotations: { readOnlyHint: true, openWorldHint: false },
  description: [
    "Returns the output the program wrote since your last read_output of this session (the first call: since the session started), as plain text:",
    "colours and escape sequences removed, backspaces, carriage returns and redraws within a line applied, as a terminal shows them.",
    "Unlike read_screen it has what scrolled off the screen: the output of a long build, a log. Bounded: past max_chars, only the end, and it says how much was left out.",
  ].join(" "),
  params: v.object({
    session: Session,
    max_chars: v.optional(
      v.pipe(
        v.number(),
        v.integer(),
        v.minValue(100),
        v.maxValue(15_000),
        v.description("The most text to return (default 8000): the end of the new output."),
      ),
    ),
  }),
  async run(p, ctx) {
    const max = p.max_chars ?? 8000;
    const info = await ctx.call("session.info", { session: p.session });
    const last = ctx.outputRead.get(info.id) ?? 0;
    const start = Math.max(last, info.bytes_out - MAX_BYTES);
    let from = start;
    const chunks: Buffer[] = [];
    while (from < info.bytes_out) {
      const r = await ctx.call("session.output", { session: info.id, from, max_bytes: info.bytes_out - from });
      if (r.to <= from) break;
      chunks.push(Buffer.from(r.base64, "base64"));
      from = r.to;
    }
    ctx.outputRead.set(info.id, from);
    const all = plainText(Buffer.concat(chunks));
    const shown = all.length > max ? all.slice(-max) : all;
    const truncated = start > last || shown.length < all.length;
    const state =
      info.state === "running"
        ? ""
        : ` The session has ended (${info.state}${info.exit_code !== null ? `, exit code ${info.exit_code}` : ""}).`;
    const head =
      shown === ""
        ? `no new output from ${info.name} since your last read (${from} bytes so far).${state}`
        : `new output from ${info.name}${truncated ? " (its end only: earlier output was left out; read_output more often, or use run_command's output)" : ""}:${state}`;
    return text(shown === "" ? head : `${head}\n${shown}`, { from: last, to: from, text: shown, truncated });
  },
});
