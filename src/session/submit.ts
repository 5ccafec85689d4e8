// Safe submit into agent TUIs. Claude Code, Codex and Gemini CLI read an Enter that arrives
// within ~120 ms of other input as a newline inside the prompt (it looks like part of a paste),
// so text and Enter in one burst never submit. Here:
// - the text goes in first: typed, as a person would, when it is one line of printable text; as a
//   paste (inside bracketed-paste boundaries when the program turned on mode 2004) when typing it
//   would press keys (a line break, a Tab, an escape). A single line is never pasted: vim turns
//   mode 2004 on and inserts a paste as text in every mode, so a pasted ":wq" lands in the buffer,
//   where typed it is a command (less and readline read typed keys the same way);
// - Enter follows no sooner than SUBMIT_GAP_MS after the text's last byte and after the output that
//   showed it (the program read the text by then, however late), and only once the
//   screen has settled (no output, no change for QUIET_MS) with the text shown: the end of its
//   last line on the screen, or a collapsed paste's placeholder ("[Pasted text #1 +5 lines]");
//   after MAX_WAIT_MS it goes anyway, and the result says the text was not seen;
// - if the screen has not changed VERIFY_MS after Enter, Enter is pressed once more, and the
//   result says so (a TUI that was still busy swallows a key), and whether that one changed it.
import type { ProgramStream } from "./stream.ts";
import { pasteBytes } from "../terminal/keys.ts";

export const SUBMIT_GAP_MS = 150;
const QUIET_MS = 50;
/** Longest wait for the text to show and the screen to settle before Enter goes anyway. */
const MAX_WAIT_MS = 3000;
/** How long Enter has to change the screen before it is pressed once more. */
const VERIFY_MS = 1000;
/** The end of the text's last line that must be on the screen: short enough to survive wrapping inside a box. */
const SHOWN_SUFFIX = 12;
const PLACEHOLDER = /\[Pasted text/i;

export interface SubmitResult {
  /** Bytes written, Enter included. */
  bytes: number;
  /** The text (or a paste placeholder) was seen on the settled screen before Enter. */
  shown: boolean;
  /** The text went inside bracketed-paste boundaries (it has several lines or other control characters, and the program turned on mode 2004); otherwise it was typed. */
  bracketed: boolean;
  /** 1, or 2 when the first Enter changed nothing on the screen. */
  enter_presses: number;
  /** An Enter changed the screen (or the program ended) within VERIFY_MS of it. */
  changed: boolean;
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const onAbort = () => (clearTimeout(t), resolve());
    // The listener goes with the delay: a connection submits thousands of times in its life.
    const t = setTimeout(() => (signal.removeEventListener("abort", onAbort), resolve()), ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** A row without the borders a TUI draws around its input box. */
function inner(row: string): string {
  return row.replace(/^[\s│┃|╭╰]+|[\s│┃|╮╯]+$/g, "");
}

/** Is the end of the text's last non-blank line (or a paste placeholder) on the screen? */
export function textShown(lines: readonly string[], text: string): boolean {
  const last = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== "")
    .at(-1);
  if (last === undefined) return true;
  const suffix = [...last].slice(-SHOWN_SUFFIX).join("");
  if (lines.some((l) => l.includes(suffix) || PLACEHOLDER.test(l))) return true;
  // Wrapped: the rows' insides, joined.
  return lines.map(inner).join("").includes(suffix);
}

/** Resolves true once the screen (a row or the cursor) changed after `seq`, false after `ms`. Output that redraws the same screen is no change. */
function changed(s: ProgramStream, seq: number, ms: number, signal: AbortSignal): Promise<boolean> {
  if (s.stream.view.seq !== seq) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (v: boolean) => {
      clearTimeout(timer);
      off();
      signal.removeEventListener("abort", onAbort);
      resolve(v);
    };
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(false), ms);
    const off = s.stream.on((e) => {
      if ((e.type === "screen" && s.stream.view.seq !== seq) || e.type === "exit") done(true);
    });
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** Would typing `text` press keys other than its characters (Enter, Tab, Escape, Ctrl+…)? Then it goes as a paste. */
export function needsPaste(text: string): boolean {
  return /[\x00-\x1f\x7f]/.test(text);
}

export async function safeSubmit(
  s: ProgramStream,
  text: string,
  signal: AbortSignal,
  timeoutMs = 10_000,
  secret = false,
): Promise<SubmitResult> {
  const bracketed = s.stream.modes.bracketed_paste && needsPaste(text);
  const data = pasteBytes(text, bracketed);
  const bytes = data.length > 0 ? await s.input(data, timeoutMs, signal, secret) : 0;
  const wroteAt = performance.now();
  await delay(SUBMIT_GAP_MS, signal);
  let shown = false;
  // When the program's last output before the text was seen: the program read the text no later
  // than that, so an Enter SUBMIT_GAP_MS after it is apart from the text even when the program
  // read it late (a loaded machine), not only SUBMIT_GAP_MS after termd wrote it.
  let echoedAt = wroteAt;
  while (!signal.aborted && s.running) {
    const now = performance.now();
    const quietFor = now - s.stream.lastActivity;
    const wasShown = shown;
    shown = textShown(s.stream.view.state.lines, text);
    if (shown && !wasShown) echoedAt = Math.max(echoedAt, s.stream.lastActivity);
    const gapLeft = SUBMIT_GAP_MS - (now - echoedAt);
    if (quietFor >= QUIET_MS && gapLeft <= 0 && s.stream.screenCurrent && shown) break;
    const left = MAX_WAIT_MS - (now - wroteAt);
    if (left <= 0) break;
    await delay(Math.min(left, Math.max(10, QUIET_MS - quietFor, gapLeft)), signal);
  }
  const result: SubmitResult = { bytes, shown, bracketed, enter_presses: 0, changed: false };
  while (result.enter_presses < 2 && !result.changed && !signal.aborted && s.running) {
    const seq = s.stream.view.seq;
    result.bytes += s.writeInput("\r");
    result.enter_presses++;
    result.changed = (await changed(s, seq, VERIFY_MS, signal)) || !s.running;
  }
  return result;
}
