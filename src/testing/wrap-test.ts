// A runner's `test` (and `it`), wrapped so that termd/testing knows each test exactly: its body
// runs in a scope that launch() finds (test-context.ts), and when the body settles the test's
// terminals are closed with its real outcome, so a test that fails by throwing its own error keeps
// its artifacts. bun:test and node:test tell a test's hooks nothing of the outcome; this is how
// termd/testing/bun and termd/testing/node learn it. Everything else (`.skip`, `.each(...)`,
// `.concurrent`, options) passes through: modifiers are wrapped alike, and any function a call
// returns (`test.each(rows)`, `test.if(cond)`) is too.
//
// The wrapper also sees a test file end: every registration also registers an after-all hook in
// its scope (a file's or a describe's), and the one that runs when every test registered in the
// file has run reports the file's obsolete snapshots (snapshots.ts). A file where some test was
// skipped, filtered out or not wrapped is never complete, so nothing is reported for it.
import { testFileDone } from "./snapshots.ts";
import { callSite } from "./stack.ts";
import { scopes, type TestScope } from "./test-context.ts";

export type AnyFn = (...args: unknown[]) => unknown;

/** Tests registered and run, per test file. */
const files = new Map<string, { registered: number; ran: number; untracked: boolean }>();

function fileOf(path: string) {
  let f = files.get(path);
  if (!f) files.set(path, (f = { registered: 0, ran: 0, untracked: false }));
  return f;
}

/**
 * `api` with every test body it is given wrapped. `title(args, given)`: the test's name from the
 * arguments the runner passes the body and the title given at registration. Bodies that take more
 * than `maxParams` parameters (a `done` callback) pass through unwrapped: they end when they call it.
 * `afterAll`: the runner's after-all hook, called at registration (in the scope being collected).
 * `call`: how the runner's function is called with the wrapped arguments (node.ts calls it as if
 * from the test file).
 */
export function wrapTestApi<T extends object>(
  api: T,
  file: () => string,
  maxParams: number,
  title: (args: unknown[], given: string) => string,
  afterAll: (fn: () => void) => void,
  call: (fn: AnyFn, self: unknown, args: unknown[]) => unknown = Reflect.apply,
): T {
  const wrapped = new WeakMap<object, unknown>();
  const wrap = (target: AnyFn, self: unknown): AnyFn => {
    const known = wrapped.get(target);
    if (known) return known as AnyFn;
    const proxy = new Proxy(target, {
      apply(fn, _this, args: unknown[]) {
        const i = args.findLastIndex((a) => typeof a === "function");
        const given = args.find((a): a is string => typeof a === "string") ?? "";
        const body = args[i] as AnyFn | undefined;
        if (body) {
          const path = file();
          const f = fileOf(path);
          f.registered++;
          // The line of the test( call: the describe blocks around it give the rest of the test's name.
          const line = callSite(new Error())?.line ?? 0;
          if (body.length <= maxParams)
            args = args.with(
              i,
              wrapBody(
                body,
                (a) => ({ file: file(), name: title(a, given), line }),
                () => f.ran++,
              ),
            );
          else f.untracked = true;
          // At least as many ran as were registered: test.each registers one body for many tests.
          afterAll(() => testFileDone(path, !f.untracked && f.ran >= f.registered));
        }
        const r = call(fn, self, args);
        return typeof r === "function" ? wrap(r as AnyFn, undefined) : r;
      },
      get(fn, key, receiver) {
        const v = Reflect.get(fn, key, receiver);
        return typeof v === "function" && typeof key === "string" && key !== "bind" && key !== "call" && key !== "apply"
          ? wrap(v as AnyFn, fn)
          : v;
      },
    });
    wrapped.set(target, proxy);
    return proxy;
  };
  return wrap(api as AnyFn, undefined) as T;
}

function wrapBody(body: AnyFn, where: (args: unknown[]) => TestScope, ran: () => void): AnyFn {
  const w = function (this: unknown, ...args: unknown[]) {
    ran();
    const scope = where(args);
    return scopes.run(scope, async () => {
      let r: unknown;
      try {
        r = await body.apply(this, args);
      } catch (err) {
        await scope.run?.end(true, err instanceof Error ? err.message : String(err));
        throw err;
      }
      await scope.run?.end(false);
      return r;
    });
  };
  // Runners read a body's parameter count (bun and node pass `done` to one that takes it).
  Object.defineProperty(w, "length", { value: body.length });
  return w;
}
