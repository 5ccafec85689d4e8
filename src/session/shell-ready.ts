// When a shell is ready for exec.run to type into it (shell-run.ts): its first prompt drawn, and
// then quiet with that prompt on the screen.
import type { ShellCommands } from "./shell-commands.ts";
import type { ProgramStream } from "./stream.ts";

/** How long exec.run waits for a just-started shell's first prompt. */
const FIRST_PROMPT_MS = 5000;

/**
 * A shell with termd's hooks is not ready to run a command until it drew its first prompt: while
 * it loads them it may have a child in the foreground for a moment, which is no job of the user's.
 * Resolves at the first mark (or the exit, or after FIRST_PROMPT_MS); at once for other shells.
 */
export function firstPrompt(s: ProgramStream, commands: ShellCommands): Promise<void> {
  if (s.shellIntegration === null || commands.seen || !s.running) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      off();
      resolve();
    };
    const timer = setTimeout(done, FIRST_PROMPT_MS);
    const off = s.stream.on((e) => {
      if (e.type === "mark" || e.type === "exit") done();
    });
  });
}

/** Quiet the shell must keep before its line is typed, so the prompt is on the screen. */
const QUIET_MS = 15;
/** Longest wait for that quiet (a shell's first prompt may take a slow rc file); past it the line is typed anyway, and not erased afterwards. */
const READY_MAX_MS = 2000;

/**
 * Resolves true once the shell has written something since its last mark (its prompt: a fresh
 * shell's first, or the one it draws after a run, maybe after a slow PROMPT_COMMAND) and then kept
 * quiet for QUIET_MS with the screen caught up, so the prompt's position is known; false after
 * READY_MAX_MS or if the session ends.
 */
export function promptQuiet(s: ProgramStream, markEnd: number): Promise<boolean> {
  return new Promise((resolve) => {
    let quietTimer: Timer | undefined;
    const finish = (ok: boolean) => {
      clearTimeout(deadline);
      clearTimeout(quietTimer);
      off();
      resolve(ok);
    };
    const check = () => {
      clearTimeout(quietTimer);
      if (!s.running) return finish(false);
      if (s.stream.output.end <= markEnd || !s.stream.screenCurrent) return;
      const quietFor = performance.now() - s.stream.lastActivity;
      if (quietFor >= QUIET_MS) return finish(true);
      quietTimer = setTimeout(check, QUIET_MS - quietFor);
    };
    const deadline = setTimeout(() => finish(false), READY_MAX_MS);
    const off = s.stream.on((e) => {
      if (e.type === "output" || e.type === "screen" || e.type === "exit") check();
    });
    check();
  });
}
