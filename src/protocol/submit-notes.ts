// How a safe submit's Enter went, in words: one reading for the CLI's `send --submit` and MCP's
// `submit`, so neither says the line went in when no Enter changed anything.
import type { SubmitReport } from "./schemas.ts";

/** A note about the Enter presses, or null when the first one changed the screen. */
export function enterNote(r: Pick<SubmitReport, "enter_presses" | "changed">): string | null {
  if (r.enter_presses === 1 && r.changed) return null;
  if (r.changed) return "the first Enter changed nothing on the screen, so Enter was pressed once more, which did";
  return `Enter was pressed ${r.enter_presses === 1 ? "once" : "twice"} and the screen did not change: the program may not have taken the line (look at the screen)`;
}
