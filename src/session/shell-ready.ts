// When a shell is ready for a line typed into it: exec.run's (shell-run.ts) once its first prompt
// is drawn and it is quiet with that prompt on the screen; a safe submit's once the prompt after
// the last command is drawn; and when exec.run answers: once the shell is back at its prompt.
// A line typed sooner lands before the prompt: the terminal echoes it, then the shell draws its
// prompt and the line again after it, so the screen reads `echo s0$ echo s0`.
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

/**
 * Longest wait for the prompt a shell draws after a command (a slow PROMPT_COMMAND, a loaded
 * machine): past it the caller goes on, so a shell whose prompt never comes holds no call.
 */
const PROMPT_AFTER_MS = 2000;

/**
 * Resolves once the shell has drawn a prompt with a mark (OSC 133 A or B) after output offset
 * `since` and the screen shows it; or when the session ends, or after PROMPT_AFTER_MS.
 */
function markedPromptAfter(s: ProgramStream, commands: ShellCommands, since: number): Promise<void> {
  const deadline = performance.now() + PROMPT_AFTER_MS;
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      off();
      resolve();
    };
    const check = () => {
      if (!s.running) return done();
      if (commands.promptAfter(since) === null) return;
      off();
      clearTimeout(timer);
      void s.stream.view.sync(Math.max(0, deadline - performance.now())).then(resolve);
    };
    const timer = setTimeout(done, PROMPT_AFTER_MS);
    const off = s.stream.on((e) => {
      if (e.type === "mark" || e.type === "exit") check();
    });
    check();
  });
}

/**
 * exec.run's answer waits for this: the shell back at its prompt after the run's mark (which ends
 * at `markEnd`), so whatever is typed next comes after the prompt. A shell that marks no prompts
 * (sh, dash, a shell without termd's hooks, or whose hooks never drew one) has drawn it once it
 * wrote something after the mark and went quiet (promptQuiet).
 */
export async function promptAfterRun(s: ProgramStream, commands: ShellCommands, markEnd: number): Promise<void> {
  if (commands.drawsMarkedPrompts) await markedPromptAfter(s, commands, markEnd);
  else await promptQuiet(s, markEnd);
}

/**
 * A safe submit waits for this: a shell that marks its prompts and is between a command's end and
 * its next prompt has drawn that prompt. At once for a shell at its prompt, one running a command
 * (the line is that command's input), one that never marked a prompt (its first is
 * `session.wait`'s `prompt`), and any other program.
 */
export function promptBeforeLine(s: ProgramStream, commands: ShellCommands): Promise<void> {
  if (!commands.drawsMarkedPrompts || !s.running || !commands.awaitingPrompt) return Promise.resolve();
  return markedPromptAfter(s, commands, s.stream.output.end);
}
