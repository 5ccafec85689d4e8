// Safe submit: some agent TUIs read an Enter that arrives within ~120 ms of a burst of text as a
// literal newline inside the prompt. So: the text, then a pause of at least SUBMIT_GAP_MS after
// its last byte that is also quiet (the app finished echoing), then Enter on its own.
import type { Session } from "./session.ts";

export const SUBMIT_GAP_MS = 150;
const QUIET_MS = 50;
const MAX_WAIT_MS = 2000;

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const onAbort = () => (clearTimeout(t), resolve());
    // The listener goes with the delay: a connection submits thousands of times in its life.
    const t = setTimeout(() => (signal.removeEventListener("abort", onAbort), resolve()), ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

export async function safeSubmit(s: Session, text: string, signal: AbortSignal): Promise<number> {
  let bytes = s.writeInput(text);
  const wroteAt = performance.now();
  await delay(SUBMIT_GAP_MS, signal);
  while (!signal.aborted && s.running && performance.now() - wroteAt < MAX_WAIT_MS) {
    const quietFor = performance.now() - s.lastActivity;
    if (quietFor >= QUIET_MS) break;
    await delay(QUIET_MS - quietFor, signal);
  }
  if (!signal.aborted) bytes += s.writeInput("\r");
  return bytes;
}
