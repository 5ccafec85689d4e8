import { OutputSchema } from "../../protocol/schemas.ts";
import { sessionCommand } from "../command.ts";

const DEFAULT_MAX = 1024 * 1024;

export default sessionCommand({
  name: "session.output",
  params: OutputSchema,
  target: {},
  exec: (p, _ctx, s) => {
    const from = Math.min(p.from ?? s.stream.output.start, s.stream.output.end);
    // Bytes that exist nowhere (the log stopped at a failed write): said so, and skipped, so a
    // client paging up to bytes_out always finishes.
    const gapEnd = s.stream.output.gapEnd(from);
    if (gapEnd !== null) return { base64: "", from, to: gapEnd, eof: false, gap: true };
    const bytes = s.stream.readOutput(from, p.max_bytes ?? DEFAULT_MAX);
    const to = from + bytes.length;
    return { base64: Buffer.from(bytes).toString("base64"), from, to, eof: !s.running && to === s.stream.output.end };
  },
});
