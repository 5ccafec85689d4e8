import { UsageError, type Parsed } from "../args.ts";

/** The SESSION positional every per-session command takes first. */
export function sessionArg(a: Parsed, extra = 0): string {
  const s = a.positional[0];
  if (s === undefined) throw new UsageError("name the session (its name or id)");
  noMoreArgs(a, 1 + extra);
  return s;
}

/** Refuses the arguments past the first `allowed`: a word a command does not take is an error, not ignored. */
export function noMoreArgs(a: Parsed, allowed = 0): void {
  if (a.positional.length > allowed) throw new UsageError(`unexpected argument ${a.positional[allowed]}`);
}
export { writeOut } from "../closed-stdout.ts";
