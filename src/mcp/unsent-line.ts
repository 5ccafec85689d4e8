// Is text an agent typed with type_text still waiting on an input line, so that submit would add
// to it? Only a guess from the screen, made narrow so it never stands in the way where there is no
// line editor: a full-screen program (the alternate screen: vim, less, top) takes keys as commands,
// and text that is no longer on the screen (sent, taken back, or typed into a mode that does not
// keep it, as vim's normal mode) is not waiting anywhere. Where the guess holds, the way to take the
// text back is Backspace once per character typed, which every line editor understands (readline,
// the terminal's own line discipline, REPLs, agent TUIs); Ctrl+U is not universal.
import type { ScreenSnapshot } from "../protocol/schemas.ts";

/** The end of the typed text that must be on a row: short enough to survive wrapping. */
const SHOWN_SUFFIX = 12;

/** The advice for taking back `typed`, or null when it is not waiting on an input line. */
export function unsentLine(screen: Pick<ScreenSnapshot, "alternate" | "lines">, typed: string): string | null {
  if (screen.alternate) return null;
  const last = typed.split(/\r?\n/).at(-1)!.trimEnd();
  if (last.trim() === "") return null;
  const suffix = [...last].slice(-SHOWN_SUFFIX).join("");
  if (!screen.lines.some((row) => row.includes(suffix))) return null;
  const n = [...last].length;
  const keys = n <= 8 ? `press_keys ${JSON.stringify(Array(n).fill("Backspace"))}` : `press_keys with "Backspace" ${n} times`;
  return `${keys} takes back the ${n} characters typed`;
}
