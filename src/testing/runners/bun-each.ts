// bun:test's `test.each` (and `it.each`, and theirs under `.concurrent`, `.serial` and
// `.failing`; not `.only`'s: reading `test.only` under CI throws), patched so that a case's body
// runs knowing its formatted title: bun formats "shell %s" into "shell bash" for its report but
// tells the test nothing of it (no expect.getState(), no test context), and the title in the
// source is the same for every case.
// The bodies run as before, with the same arguments and `this`; only the registration passes
// through here. Patched in place, on the functions bun:test exports, since a test file's
// `import { test } from "bun:test"` binding cannot be replaced.
import { AsyncLocalStorage } from "node:async_hooks";
import type { test as bunTest } from "bun:test";
import { eachTitle } from "../each-title.ts";

type AnyFn = (...args: unknown[]) => unknown;

const PATCHED = Symbol.for("termd.testing.eachPatched");
const MODIFIERS = ["concurrent", "serial", "failing"] as const;

/** The formatted title of the test.each case whose body runs now. */
const current = new AsyncLocalStorage<string>();

export function caseTitle(): string | undefined {
  return current.getStore();
}

/** The index of the row a case's body got (`args`: an array row's items, or the row). */
function rowIndex(rows: readonly unknown[], args: readonly unknown[]): number {
  return rows.findIndex((r) => (Array.isArray(r) ? r.every((v, i) => Object.is(v, args[i])) : Object.is(r, args[0])));
}

function patch(api: Record<string | symbol, unknown>): void {
  const each = api.each as ((rows: unknown[]) => AnyFn) | undefined;
  if (typeof each !== "function" || api[PATCHED]) return;
  api[PATCHED] = true;
  api.each = function (this: unknown, rows: unknown[]) {
    const register = Reflect.apply(each, this, [rows]) as AnyFn;
    return (title: unknown, fn: unknown, ...rest: unknown[]) => {
      if (typeof title !== "string" || typeof fn !== "function" || !Array.isArray(rows)) return register(title, fn, ...rest);
      const body = fn as AnyFn;
      const named = function (this: unknown, ...args: unknown[]) {
        const i = rowIndex(rows, args);
        return current.run(eachTitle(title, i >= 0 ? rows[i] : args, Math.max(i, 0)), () => Reflect.apply(body, this, args));
      };
      // bun reads a body's parameter count (one more than the row's values takes `done`).
      Object.defineProperty(named, "length", { value: body.length });
      return register(title, named, ...rest);
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
