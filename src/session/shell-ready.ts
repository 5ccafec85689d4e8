// When a shell is ready for a line typed into it: exec.run's (shell-run.ts) once its first prompt
// is drawn and it is quiet with that prompt on the screen; a safe submit's once the prompt after
// the last command is drawn; and when exec.run answers: once the shell is back at its prompt.
// A line typed sooner lands before the prompt: the terminal echoes it, then the shell draws its
// prompt and the line again after it, so the screen reads `echo s0$ echo s0`.
import { PROMPT_AFTER_MS } from "../protocol/wait-limits.ts";
import type { ShellCommands } from "./shell-commands.ts";
import type { ProgramStream, SessionEvent } from "./stream.ts";

/** What a watch's `check` may do: answer it, or have itself asked again after a while (as if an event came). */
interface Watch<T> {
  done(value: T): void;
  again(ms: number): void;
}

/**
 * The shape of every wait here: `check` is asked at once, then on each of the session's events
 * (with it) and when it asked to be asked `again`, until it calls `done`; after `ms`, or when
 * `signal` aborts (the caller went away), the answer is `late`. The listener and timers go with
 * the answer.
 */
function watch<T>(s: ProgramStream, ms: number, late: T, check: (w: Watch<T>, e?: SessionEvent) => void, signal?: AbortSignal): Promise<T> {
  if (signal?.aborted) return Promise.resolve(late);
  return new Promise<T>((resolve) => {
    let answered = false;
    let againTimer: Timer | undefined;
    const giveUp = () => w.done(late);
    const w: Watch<T> = {
      done: (value) => {
        if (answered) return;
        answered = true;
        clearTimeout(timer);
        clearTimeout(againTimer);
        off();
        signal?.removeEventListener("abort", giveUp);
        resolve(value);
      },
      again: (after) => {
        clearTimeout(againTimer);
        againTimer = setTimeout(() => check(w), after);
      },
    };
    const timer = setTimeout(giveUp, ms);
    const off = s.stream.on((e) => check(w, e));
    signal?.addEventListener("abort", giveUp, { once: true });
    check(w);
  });
}

/**
 * A shell with termd's hooks is not ready to run a command until it drew its first prompt: while
 * it loads them it may have a child in the foreground for a moment, which is no job of the user's.
 * Resolves at the first mark or the exit, or once the shell's first-prompt time is over
 * (ShellCommands' FIRST_PROMPT_MS: its hooks did not load); at once for other shells.
 */
export function firstPrompt(s: ProgramStream, commands: ShellCommands): Promise<void> {
  if (s.shellIntegration === null || commands.seen || !s.running) return Promise.resolve();
  return watch<void>(s, commands.firstPromptLeft(), undefined, (w, e) => {
    if (e?.type === "mark" || e?.type === "exit") w.done();
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
  return watch(s, READY_MAX_MS, false, (w, e) => {
    if (e && e.type !== "output" && e.type !== "screen" && e.type !== "exit") return;
    if (!s.running) return w.done(false);
    if (s.stream.output.end <= markEnd || !s.stream.screenCurrent) return;
    const quietFor = performance.now() - s.stream.lastActivity;
    if (quietFor >= QUIET_MS) return w.done(true);
    w.again(QUIET_MS - quietFor);
  });
}

/**
 * Resolves once the shell has drawn a prompt with a mark (OSC 133 A or B) after output offset
 * `since` and the screen shows it; or when the session ends, `signal` aborts, or after
 * PROMPT_AFTER_MS (a slow PROMPT_COMMAND, a loaded machine: a shell whose prompt never comes
 * holds no call).
 */
function markedPromptAfter(s: ProgramStream, commands: ShellCommands, since: number, signal?: AbortSignal): Promise<void> {
  const deadline = performance.now() + PROMPT_AFTER_MS;
  let syncing = false;
  return watch<void>(
    s,
    PROMPT_AFTER_MS,
    undefined,
    (w, e) => {
      if (e && e.type !== "mark" && e.type !== "exit") return;
      if (!s.running) return w.done();
      if (syncing || commands.promptAfter(since) === null) return;
      syncing = true;
      void s.stream.view.sync(Math.max(0, deadline - performance.now())).then(() => w.done());
    },
    signal,
  );
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
 * A safe submit waits for this (until `signal` aborts: its caller went away): a shell that marks
 * its prompts and is between a command's end and its next prompt has drawn that prompt. At once
 * for a shell at its prompt, one running a command (the line is that command's input), one that
 * never marked a prompt (its first is `session.wait`'s `prompt`), and any other program.
 */
export function promptBeforeLine(s: ProgramStream, commands: ShellCommands, signal?: AbortSignal): Promise<void> {
  if (!commands.drawsMarkedPrompts || !s.running || !commands.awaitingPrompt) return Promise.resolve();
  return markedPromptAfter(s, commands, s.stream.output.end, signal);
}
