import { MAX_PAGE_BODY } from "../../protocol/framing.ts";
import { OutputSchema } from "../../protocol/schemas.ts";
import { sessionCommand } from "../command.ts";

const DEFAULT_MAX = 1024 * 1024;
/** Bytes of one page whatever max_bytes asks: their base64 (4 characters for 3 bytes) fits MAX_PAGE_BODY. */
const MAX_PAGE_BYTES = Math.floor(MAX_PAGE_BODY / 4) * 3;

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
    const bytes = s.stream.readOutput(from, Math.min(p.max_bytes ?? DEFAULT_MAX, MAX_PAGE_BYTES));
    const to = from + bytes.length;
    return { base64: Buffer.from(bytes).toString("base64"), from, to, eof: !s.running && to === s.stream.output.end };
  },
});
