// session.screen with as much scrollback as asked, whole: a reply holds the newest lines that fit
// its bound (MAX_PAGE_BODY), so the older ones are read page by page, each ending where the one
// after it began (`scrollback_end`), and put back together oldest first.
import type { ParamsOf } from "../protocol/methods.ts";
import type { ScreenSnapshot } from "../protocol/schemas.ts";

type ScreenParams = ParamsOf<"session.screen">;
type ScreenCall = (params: ScreenParams) => Promise<ScreenSnapshot>;

/** Walks made again when the session's output moved on between two pages (lines counted from the newest moved with it). */
const WALKS = 3;

/**
 * The snapshot `params` asks for, with all of its `scrollback`: the newest page's screen, cursor
 * and hash, the older pages' lines (and cells, and ANSI) before its own. A session that writes
 * all the while is read again, up to WALKS times; the last walk is taken as it is.
 */
export async function wholeScreen(call: ScreenCall, params: ScreenParams): Promise<ScreenSnapshot> {
  for (let walk = 1; ; walk++) {
    const snap = await call(params);
    const older = await olderPages(call, params, snap, walk < WALKS);
    if (older) return joined(older, snap);
  }
}

/** The pages above `newest`, newest first; null if `steady` and the output or the size changed while they were read. */
async function olderPages(
  call: ScreenCall,
  params: ScreenParams,
  newest: ScreenSnapshot,
  steady: boolean,
): Promise<ScreenSnapshot[] | null> {
  const want = params.scrollback ?? 0;
  const pages: ScreenSnapshot[] = [];
  let got = newest.scrollback_lines;
  let end = newest.scrollback_end + got;
  let last = newest;
  while (got < want && end < newest.scrollback_total && last.scrollback_lines > 0) {
    last = await call({ ...params, scrollback: want - got, scrollback_end: end });
    const moved = last.offset !== newest.offset || last.size.rows !== newest.size.rows || last.size.cols !== newest.size.cols;
    if (moved && steady) return null;
    pages.push(last);
    got += last.scrollback_lines;
    end += last.scrollback_lines;
  }
  return pages;
}

function joined(older: ScreenSnapshot[], newest: ScreenSnapshot): ScreenSnapshot {
  if (older.length === 0) return newest;
  const pages = [...older].reverse();
  const above = <T>(of: (p: ScreenSnapshot) => T[]) => pages.flatMap((p) => of(p).slice(0, p.scrollback_lines));
  return {
    ...newest,
    lines: [...above((p) => p.lines), ...newest.lines],
    scrollback_lines: pages.reduce((n, p) => n + p.scrollback_lines, newest.scrollback_lines),
    ...(newest.cells ? { cells: [...above((p) => p.cells!), ...newest.cells] } : {}),
    ...(newest.ansi !== undefined ? { ansi: pages.map((p) => p.ansi).join("") + newest.ansi } : {}),
  };
}
