import { MAX_PAGE_BODY } from "../../protocol/framing.ts";
import { CastSchema } from "../../protocol/schemas.ts";
import { type CastPage, castHeader, castPage } from "../../session/cast.ts";
import { journalPathOf, readJournal } from "../../session/journal.ts";
import { sessionCommand } from "../command.ts";

// Any session's output as asciicast v2, in pages of output bytes (the header comes with the
// first page): timed by the journal beside the log, so sessions need not have been recorded.

/** What of a page's room its header may take, at most: the rest is for the output. */
const MAX_CAST_HEADER = MAX_PAGE_BODY / 2;
/** Of its room, what a page cut to fit aims at: its events' own overhead does not shrink in proportion. */
const AIM = 0.98;

export default sessionCommand({
  name: "session.cast",
  params: CastSchema,
  target: {},
  exec: (p, { daemon }, s) => {
    const { stream } = s;
    const journal = readJournal(journalPathOf(stream.logPath), daemon.store.lineFiles);
    const first = journal.find((e) => e.kind === "r");
    const header =
      p.from === 0
        ? castHeader(
            {
              size: first?.kind === "r" ? first.size : stream.size,
              term: s.term,
              command: s.command,
              startedAt: s.createdAt,
              title: stream.tap.title || undefined,
            },
            MAX_CAST_HEADER,
          )
        : undefined;
    const result = ({ lines, to }: CastPage) => ({
      ...(header ? { header } : {}),
      lines,
      from: p.from,
      to,
      eof: to >= stream.output.end && !s.running,
    });
    const read = (from: number, max: number) => stream.readOutput(from, max);
    // The reply is measured whole: the header (a long command or title) leaves the events less room.
    const room = MAX_PAGE_BODY - Buffer.byteLength(JSON.stringify(result({ lines: [], to: p.from })));
    let page = castPage(journal, read, p.from, p.max_bytes);
    // A control byte is 6 characters of its event's JSON and 7 of the reply (\\u0001), a quote or
    // a backslash 3: a page past its room is cut in proportion, so one more read usually fits
    // (halving read an 8 MiB page of them 3 more times, each a page of string work on this thread).
    for (let size = 0; page.to - p.from > 1 && (size = Buffer.byteLength(JSON.stringify(page.lines))) > room; )
      page = castPage(journal, read, p.from, Math.max(1, Math.floor(((page.to - p.from) * room * AIM) / size)));
    return result(page);
  },
});
