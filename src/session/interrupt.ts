// An interrupt typed just as a shell starts a command must reach the command. bash reports the
// command (OSC 133 C) from its DEBUG trap, then forks; the fork takes its own process group and
// the terminal, and only then puts back the default signal handlers and execs the command. An INTR
// (Ctrl+C) that lands before the exec goes to bash's own handler, in the shell or in the fork,
// which keeps it as a flag, and the command runs on: `sleep 3` ended with status 0 after a Ctrl+C
// sent once its C mark was seen, one time in three here. So a signal character for a shell whose
// command has started waits, up to JOB_TERMINAL_MS, while the terminal's foreground group is the
// shell or a fork of it that has not exec'd (its command line is still the shell's). A builtin
// (`read`) or a subshell never execs: its interrupt goes out after JOB_TERMINAL_MS, as it would
// have gone at once before.
import { commandLine, foregroundGroup } from "../pty/processes.ts";
import type { ProgramStream } from "./stream.ts";

/** The longest a signal character waits for the command to have the terminal. */
export const JOB_TERMINAL_MS = 500;
/** How often the terminal's foreground group is read meanwhile. */
const POLL_MS = 2;

/** INTR, QUIT and SUSP as a terminal has them by default: ^C, ^\ and ^Z. */
function hasSignalChar(data: string | Uint8Array): boolean {
  if (typeof data === "string") return /[\x03\x1a\x1c]/.test(data);
  return data.some((b) => b === 0x03 || b === 0x1a || b === 0x1c);
}

/** The terminal's foreground group is shell `pid` itself, or a fork of it not yet exec'd. */
function shellHasTerminal(pid: number, shellLine: string | null): boolean {
  const fg = foregroundGroup(pid);
  if (fg === null) return false;
  return fg === pid || (shellLine !== null && commandLine(fg) === shellLine);
}

/** Resolves once `data` may be written: at once unless it holds a signal character meant for a command still being started. */
export async function untilJobHasTerminal(s: ProgramStream, data: string | Uint8Array): Promise<void> {
  if (!hasSignalChar(data) || !s.running || s.shellIntegration === null || s.stream.tap.running === null) return;
  const pid = s.pid;
  if (pid === null) return;
  const shellLine = commandLine(pid);
  const deadline = performance.now() + JOB_TERMINAL_MS;
  while (s.running && s.stream.tap.running !== null && shellHasTerminal(pid, shellLine) && performance.now() < deadline)
    await Bun.sleep(POLL_MS);
}
