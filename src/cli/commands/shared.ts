import { UsageError, type Parsed } from "../args.ts";

/** The SESSION positional every per-session command takes first. */
export function sessionArg(a: Parsed, extra = 0): string {
  const s = a.positional[0];
  if (s === undefined) throw new UsageError("name the session (its name or id)");
  if (a.positional.length > 1 + extra) throw new UsageError(`unexpected argument ${a.positional[1 + extra]}`);
  return s;
}
export { writeOut } from "../closed-stdout.ts";
