// The checks a command's declared target (command.ts's Target) makes of its session, in one order
// for every method: attached read-only, held by another client, then not running. Dispatch makes
// them before the handler runs; a handler that waits before it acts (a safe submit waiting for the
// shell's prompt) makes them again once it is done waiting.
import { RpcError } from "../protocol/errors.ts";
import type { Session } from "../session/session.ts";
import { notRunning } from "../session/session-errors.ts";
import type { CallContext, Target } from "./command.ts";

/** Throws what `t` refuses of `s` for this call's client. */
export function checkTarget(t: Target, s: Session, ctx: CallContext): void {
  if (t.write !== undefined) {
    const sub = ctx.peer.subscription(s);
    if (t.typing && sub?.readOnly) throw new RpcError("UNAUTHORIZED", `this connection is attached to ${s.name} read-only`);
    s.hold.check(sub, t.write);
  }
  if (t.running && !s.running) throw notRunning(s);
}
