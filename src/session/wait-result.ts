// What a wait answers, whether its group found something or its own timeout came.
import type { ScreenSnapshot, WaitOutcome, WaitResult } from "../protocol/schemas.ts";
import type { ProgramStream } from "./stream.ts";

/** A wait's answer with the screen it saw, and how the program ended if it has. */
export function resultOf(s: ProgramStream, outcome: WaitOutcome, screen: ScreenSnapshot): WaitResult {
  const result: WaitResult = { outcome, screen };
  if (!s.running) {
    result.exit_code = s.exitCode;
    result.signal = s.signal;
  }
  return result;
}
