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
 * One read of a session's lines in pages, newest first, that no output tore: `newest` reads the
 * first page, `older(pages)` the one above the last of those read (null: there is none to read),
 * and a page that `moved` from the newest (the session wrote in between, so the lines counted from
 * the newest moved with it) starts the walk again, up to WALKS times; the last walk is taken as it
 * is. Any client's paging (this module's, `interminai output`'s) walks so.
 */
export async function walkPages<P>(
  newest: () => Promise<P>,
  older: (pages: readonly [P, ...P[]]) => Promise<P> | null,
  moved: (newest: P, page: P) => boolean,
): Promise<[P, ...P[]]> {
  for (let walk = 1; ; walk++) {
    const pages: [P, ...P[]] = [await newest()];
    let next: Promise<P> | null;
    while ((next = older(pages)) !== null) {
      const page = await next;
      if (walk < WALKS && moved(pages[0], page)) break;
      pages.push(page);
    }
    if (next === null) return pages;
  }
}

/**
 * The snapshot `params` asks for, with all of its `scrollback`: the newest page's screen, cursor
 * and hash, the older pages' lines (and cells, and ANSI) before its own. A session that writes
 * all the while is read again (walkPages).
 */
export async function wholeScreen(call: ScreenCall, params: ScreenParams): Promise<ScreenSnapshot> {
  const want = params.scrollback ?? 0;
  const [newest, ...older] = await walkPages(
    () => call(params),
    (pages) => {
      const first = pages[0];
      const got = pages.reduce((n, p) => n + p.scrollback_lines, 0);
      const end = first.scrollback_end + got;
      if (got >= want || end >= first.scrollback_total || pages.at(-1)!.scrollback_lines === 0) return null;
      return call({ ...params, scrollback: want - got, scrollback_end: end });
    },
    (first, page) => page.offset !== first.offset || page.size.rows !== first.size.rows || page.size.cols !== first.size.cols,
  );
  return joined(older, newest);
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
