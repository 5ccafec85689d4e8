// Project defaults for every launch: `configure({ … })`, or the `termd.testing` field of the
// package.json nearest the directory the tests run in. What a launch is told wins over
// configure(), which wins over package.json, which wins over the built-in defaults.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import * as v from "valibot";

const Size = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(10_000));

const ConfigSchema = v.strictObject({
  /** Rows of a new terminal (default 24). */
  rows: v.optional(Size),
  /** Columns of a new terminal (default 80). */
  cols: v.optional(Size),
  /** Default timeout of waits and matchers, ms (default: 10000, at most 60% of the runner's test timeout). */
  timeout: v.optional(v.pipe(v.number(), v.minValue(0))),
  /** Added to every program's environment (a launch's own `env` is added on top). */
  env: v.optional(v.record(v.string(), v.string())),
  /** The shell of a string command and of `launch.shell()` given none (default /bin/sh; launch.shell: bash). */
  shell: v.optional(v.pipe(v.string(), v.minLength(1))),
  /** When a test's recording and screens are kept: "retain-on-failure" (default), "on" or "off". */
  trace: v.optional(v.picklist(["on", "retain-on-failure", "off"])),
  /** Text a wait or matcher finds in more than one place fails, showing each (default false). */
  strict: v.optional(v.boolean()),
});

export type TestingConfig = v.InferOutput<typeof ConfigSchema>;
export type Trace = NonNullable<TestingConfig["trace"]>;

let given: TestingConfig = {};
let fromPackage: TestingConfig | undefined;

function check(c: unknown, where: string): TestingConfig {
  const r = v.safeParse(ConfigSchema, c);
  if (r.success) return r.output;
  const issues = r.issues.map((i) => `${i.path?.map((p) => String(p.key)).join(".") || "(options)"}: ${i.message}`);
  throw new Error(`termd/testing: bad ${where}: ${issues.join("; ")}`);
}

function merge(a: TestingConfig, b: TestingConfig): TestingConfig {
  return { ...a, ...b, ...(a.env || b.env ? { env: { ...a.env, ...b.env } } : {}) };
}

/** Sets project defaults for every launch after it (merged into what earlier calls set). */
export function configure(options: TestingConfig): void {
  given = merge(given, check(options, "configure() options"));
}

/** The `termd.testing` field of the package.json nearest the working directory, read once. */
function packageDefaults(): TestingConfig {
  if (fromPackage) return fromPackage;
  fromPackage = {};
  for (let dir = process.cwd(); ; dir = dirname(dir)) {
    const path = join(dir, "package.json");
    let text: string | undefined;
    try {
      text = readFileSync(path, "utf8");
    } catch {}
    if (text !== undefined) {
      const field = (JSON.parse(text) as { termd?: { testing?: unknown } }).termd?.testing;
      if (field !== undefined) fromPackage = check(field, `"termd.testing" in ${path}`);
      return fromPackage;
    }
    if (dirname(dir) === dir) return fromPackage;
  }
}

/** The defaults in force: package.json's, then configure()'s over them. */
export function settings(): TestingConfig {
  return merge(packageDefaults(), given);
}
