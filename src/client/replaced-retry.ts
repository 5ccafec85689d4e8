// A call the daemon refused because it is being replaced in place (DAEMON_REPLACED: `termd daemon
// restart`) did not run, so termd/client sends it again once the next image answers (client.ts):
// which refusals say so, and how long and how often it tries.
import { RpcError, type WireError } from "../protocol/errors.ts";

/** How long, from the call, a refused call may wait for the next daemon; then it fails with the refusal. */
export const RETRY_WITHIN_MS = 30_000;
/** How many times a refused call is sent again. */
export const RETRIES = 3;

/** Refusals of calls that did not run. */
const unrun = new WeakSet<Error>();

export const isReplaced = (err: unknown): err is RpcError => err instanceof RpcError && err.name === "DAEMON_REPLACED";

/**
 * The error of a DAEMON_REPLACED line. `unrunCalls`: it is a reply with a call's own id, which the
 * daemon sends only for a request it refused without running (over HTTP, or a connection's first
 * line during the farewell, after which it runs nothing on that connection). The farewell for no
 * request may cut calls under way: those are not sent again.
 */
export function wireError(wire: WireError, unrunCalls: boolean): RpcError {
  const err = RpcError.fromWire(wire);
  if (unrunCalls && isReplaced(err)) unrun.add(err);
  return err;
}

/** Whether a call that failed with `err` is sent again: refused unrun, or never sent (`notSent`) after the daemon said it is being replaced. */
export function sendsAgain(err: unknown, notSent: boolean): boolean {
  return isReplaced(err) && (notSent || unrun.has(err));
}

/** Whether `p` settles before `deadline` (a Date.now() time). Its timer holds the process meanwhile, as a waiting call does. */
export async function within(p: Promise<void>, deadline: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<boolean>((r) => (timer = setTimeout(() => r(false), Math.max(0, deadline - Date.now()))));
  try {
    return await Promise.race([p.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}
