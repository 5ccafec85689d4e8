// bun:test's `test.each` (and `it.each`, and theirs under `.concurrent`, `.serial` and
// `.failing`; not `.only`'s: reading `test.only` under CI throws), patched so that a case's body
// runs knowing its formatted title: bun formats "shell %s" into "shell bash" for its report but
// tells the test nothing of it (no expect.getState(), no test context), and the title in the
// source is the same for every case.
// The bodies run as before, with the same arguments and `this`; only the registration passes
// through here, each row registered on its own. Patched in place, on the functions bun:test
// exports, since a test file's `import { test } from "bun:test"` binding cannot be replaced.
// `describe.each` is not patched: its body runs as the file is collected, and its tests (plain
// `test` calls, which cannot be patched) could learn its row only through an AsyncLocalStorage
// set then, which bun 1.4 carries into the tests registered under it but breaks them with (a
// synchronous body waits for a `done`; test.each throws "bind() called on non-callable").
import { AsyncLocalStorage } from "node:async_hooks";
import type { test as bunTest } from "bun:test";
import { eachTitle, SPECIFIER } from "../each-title.ts";

type AnyFn = (...args: unknown[]) => unknown;

const PATCHED = Symbol.for("termd.testing.eachPatched");
const MODIFIERS = ["concurrent", "serial", "failing"] as const;

/** The formatted title of the test.each case whose body runs now. */
const current = new AsyncLocalStorage<string>();

export function caseTitle(): string | undefined {
  return current.getStore();
}

/** `title` with `%#` written as `index` (`%%#` is a percent sign and a `#`). */
const withIndex = (title: string, index: number) => title.replace(SPECIFIER, (spec) => (spec === "%#" ? String(index) : spec));

function patch(api: Record<string | symbol, unknown>): void {
  const each = api.each as ((rows: unknown[]) => AnyFn) | undefined;
  if (typeof each !== "function" || api[PATCHED]) return;
  api[PATCHED] = true;
  api.each = function (this: unknown, rows: unknown[]) {
    const table = (r: unknown[]) => Reflect.apply(each, this, [r]) as AnyFn;
    return (title: unknown, fn: unknown, ...rest: unknown[]) => {
      if (typeof title !== "string" || typeof fn !== "function" || !Array.isArray(rows) || rows.length === 0)
        return table(rows)(title, fn, ...rest);
      const body = fn as AnyFn;
      // Each row as a table of its own, in order: a case knows its index however many rows are
      // equal. bun (1.4) leaves `%#` as written, and would count from 0 in each table: it is
      // written here, so bun's report shows the index too.
      for (const [i, row] of rows.entries()) {
        const formatted = eachTitle(title, row, i);
        const named = function (this: unknown, ...args: unknown[]) {
          return current.run(formatted, () => Reflect.apply(body, this, args));
        };
        // bun reads a body's parameter count (one more than the row's values takes `done`).
        Object.defineProperty(named, "length", { value: body.length });
        table([row])(withIndex(title, i), named, ...rest);
      }
      return undefined;
    };
  };
}

/** Patches `test.each` and the modifiers' (bun's `it` is the same function as its `test`). */
export function patchEach(test: typeof bunTest): void {
  const api = test as unknown as Record<string | symbol, unknown>;
  patch(api);
  for (const m of MODIFIERS) {
    const modified = api[m];
    if (typeof modified === "function") patch(modified as unknown as Record<string | symbol, unknown>);
  }
}
