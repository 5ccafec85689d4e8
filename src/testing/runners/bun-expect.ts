// bun's built-in matchers, wrapped to tell test-context.ts when one fails (or passes: a test that
// goes on caught the failure before) in a test that launched a terminal: a failed test's
// artifacts get written, and the failure message says where. The
// matchers behave exactly as before otherwise (same results, same errors, rethrown). Our own
// matchers (matchers.ts) report their failures themselves: this runs before they are added.
import type { expect as bunExpect } from "bun:test";
import { pointAtCaller } from "../stack.ts";
import { anyRuns, registeredRunAt } from "../test-context.ts";

const WRAPPED = Symbol.for("termd.testing.expectWrapped");

function noteSuccess(site: Error): void {
  registeredRunAt(site.stack ?? "")?.ok();
}

function noteFailure(err: unknown, site: Error): void {
  pointAtCaller(err, site);
  const run = registeredRunAt(site.stack ?? "");
  if (!run) return;
  run.fail(err instanceof Error ? err.message : String(err));
  if (err instanceof Error && !err.message.includes("test-results/"))
    err.message += `\n\nartifacts (if the test fails): ${run.artifactDir}/`;
}

export function wrapBuiltinMatchers(expect: typeof bunExpect): void {
  const proto = Object.getPrototypeOf(expect(0)) as Record<string | symbol, unknown>;
  if (proto[WRAPPED]) return;
  proto[WRAPPED] = true;
  for (const key of Object.getOwnPropertyNames(proto)) {
    const d = Object.getOwnPropertyDescriptor(proto, key);
    if (!d || typeof d.value !== "function" || key === "constructor" || !key.startsWith("to")) continue;
    const original = d.value as (...args: unknown[]) => unknown;
    const wrapped = function (this: unknown, ...args: unknown[]): unknown {
      // Tests that launched nothing pay nothing.
      if (!anyRuns()) return Reflect.apply(original, this, args);
      const site = new Error();
      try {
        const r = Reflect.apply(original, this, args);
        if (r instanceof Promise) {
          return r.then(
            (v: unknown) => (noteSuccess(site), v),
            (err: unknown) => {
              noteFailure(err, site);
              throw err;
            },
          );
        }
        noteSuccess(site);
        return r;
      } catch (err) {
        noteFailure(err, site);
        throw err;
      }
    };
    Object.defineProperty(proto, key, { ...d, value: wrapped });
  }
}
