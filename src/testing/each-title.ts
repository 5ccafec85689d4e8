// The title of one case of `test.each(rows)(title, fn)`, formatted as jest formats it (bun's and
// vitest's follow it): `%s` `%d` `%i` `%f` `%j` `%o` `%O` `%p` take the row's values in turn, `%#`
// is the case's index, `%%` a percent sign; a row that is an object fills `$name` (or `$a.b`)
// with its fields instead. bun formats a case's title but tells a test nothing of it
// (runners/bun-each.ts), so termd/testing formats it again; where bun's own formatting departs
// from jest's (it leaves a `%s` whose value is not a string), the titles differ, but each case
// still gets a title, and an artifacts folder, of its own.
import { inspect } from "node:util";

/** A title's printf-style specifiers (`%%` one of them, so `%%#` is no index). */
export const SPECIFIER = /%[sdifjoOp#%]/g;

function show(v: unknown): string {
  return typeof v === "string" ? v : inspect(v, { breakLength: Number.POSITIVE_INFINITY, depth: 1 });
}

function field(row: object, path: string): unknown {
  let v: unknown = row;
  for (const k of path.split(".")) v = v === null || v === undefined ? undefined : (v as Record<string, unknown>)[k];
  return v;
}

/** `title` for the case `row` (the values a case's body gets: an array row's items, else the row) at `index`. */
export function eachTitle(title: string, row: unknown, index: number): string {
  if (row !== null && typeof row === "object" && !Array.isArray(row) && title.includes("$"))
    return title.replace(/\$([A-Za-z_$][\w$]*(?:\.[\w$]+)*)/g, (m, path: string) => {
      const v = field(row, path);
      return v === undefined && !(path.split(".")[0]! in row) ? m : show(v);
    });
  const values = Array.isArray(row) ? [...row] : [row];
  return title.replace(SPECIFIER, (spec) => {
    if (spec === "%%") return "%";
    if (spec === "%#") return String(index);
    if (values.length === 0) return spec;
    const v = values.shift();
    switch (spec) {
      case "%d":
      case "%i":
      case "%f": {
        const n = Number(v);
        return String(spec === "%i" ? Math.trunc(n) : n);
      }
      case "%j":
        return JSON.stringify(v);
      case "%s":
        return show(v);
      default:
        return inspect(v, { breakLength: Number.POSITIVE_INFINITY, depth: 1 });
    }
  });
}
