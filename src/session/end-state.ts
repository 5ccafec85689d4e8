// Which ended state a program's exit puts its session in. The first that applies: lost (its pty
// worker died, so how it exited is unknown), stopped (session.stop asked), killed (by a signal
// session.signal sent it), failed (another signal, or a non-zero code), else exited.
import type { SessionState } from "../protocol/schemas.ts";
import type { ChildExit } from "../pty/child.ts";

export function endStateOf(
  { exitCode, signal, lost }: ChildExit,
  stopRequested: boolean,
  signalSent: string | null | undefined,
): Exclude<SessionState, "running"> {
  if (lost !== undefined) return "lost";
  if (stopRequested) return "stopped";
  if (signal && signal === signalSent) return "killed";
  if (signal || exitCode !== 0) return "failed";
  return "exited";
}
