import { MAX_PAGE_BODY } from "../../protocol/framing.ts";
import { CastSchema } from "../../protocol/schemas.ts";
import { castHeader, castPage } from "../../session/cast.ts";
import { journalPathOf, readJournal } from "../../session/journal.ts";
import { sessionCommand } from "../command.ts";

// Any session's output as asciicast v2, in pages of output bytes (the header comes with the
// first page): timed by the journal beside the log, so sessions need not have been recorded.
export default sessionCommand({
  name: "session.cast",
  params: CastSchema,
  target: {},
  exec: (p, { daemon }, s) => {
    const { stream } = s;
    const journal = readJournal(journalPathOf(stream.logPath), daemon.store.lineFiles);
    const first = journal.find((e) => e.kind === "r");
    const read = (from: number, max: number) => stream.readOutput(from, max);
    let page = castPage(journal, read, p.from, p.max_bytes);
    // A control byte is 6 characters of its event's JSON and 7 of the reply (\\u0001), a quote or
    // a backslash 3: a page of them is halved until it fits MAX_PAGE_BODY.
    while (page.to - p.from > 1 && Buffer.byteLength(JSON.stringify(page.lines)) > MAX_PAGE_BODY)
      page = castPage(journal, read, p.from, Math.floor((page.to - p.from) / 2));
    const header =
      p.from === 0
        ? castHeader({
            size: first?.kind === "r" ? first.size : stream.size,
            term: s.term,
            command: s.command,
            startedAt: s.createdAt,
            title: stream.tap.title || undefined,
          })
        : undefined;
    return { ...(header ? { header } : {}), lines: page.lines, from: p.from, to: page.to, eof: page.to >= stream.output.end && !s.running };
  },
});
