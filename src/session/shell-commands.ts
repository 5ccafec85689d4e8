// The commands a shell with shell integration reported (OSC 133: C when a command starts, D with
// its status when it is done), with where each one's output is in the stream: session.wait's
// command_done answers from here, with the output between the two marks.
import type { CommandDone } from "../protocol/schemas.ts";
import { plainText } from "../terminal/plain-text.ts";
import type { OutputStream } from "./stream.ts";

/** Finished commands kept, newest last. */
export const MAX_COMMANDS = 32;
/** The most of a command's output a wait returns: the end of it, when there is more. */
export const MAX_COMMAND_OUTPUT = 1024 * 1024;

export interface CommandRun {
  /** The command line, when the shell sent it. */
  command: string | null;
  exit_code: number | null;
  started_at: string;
  ended_at: string;
  /** Output offsets: just past the C mark, and just past the D mark. */
  from: number;
  to: number;
}

/**
 * zsh's PROMPT_SP, which it prints after a command and before its precmd hooks (so before D): the
 * PROMPT_EOL_MARK (an inverse % or #), a line of spaces, CR, space, CR. It is zsh's, not the
 * command's output.
 */
const PROMPT_SP = /(?:\x1b\[[0-9;]*m)*[%#](?:\x1b\[[0-9;]*m)* +\r \r((?:\x1b\][^\x07\x1b]*(?:\x07|\x1b\\))*)$/;

function commandOutput(bytes: Uint8Array): string {
  const raw = new TextDecoder().decode(bytes);
  return plainText(new TextEncoder().encode(raw.replace(PROMPT_SP, "$1")));
}

/**
 * How long a shell with termd's hooks has to draw its first prompt, from its start (a slow rc file,
 * a loaded machine): exec.run waits that long for it, and a shell that has marked no prompt by then
 * is taken to mark none (its hooks did not load, or an rc file replaced them).
 */
export const FIRST_PROMPT_MS = 10_000;

/** The line exec.run types to source a file of its run (shell-run.ts): its plumbing, no command of the user's. */
const EXEC_LINE = /^ ?\. '[^']*\/termd-exec-[^/']+\/[wr]'$/;

export class ShellCommands {
  private readonly done: CommandRun[] = [];
  private started: { command: string | null; at: string; from: number } | null = null;
  /** Output offset just past the last prompt's mark (B, or A when the shell sends no B); null while a command runs. */
  private promptEnd: number | null = null;
  /** Between a C mark (exec.run's own lines' too) and the D or the next prompt. */
  private inCommand = false;
  /** The shell has drawn a prompt with a mark (A or B): it draws each so. */
  private marksPrompts = false;
  /**
   * When the shell started (performance.now()), as this daemon saw it: a session's restart runs a
   * new one. null for one an earlier image of the daemon started (handover.ts), whose first prompt
   * is long past and whose prompts so far this image did not see.
   */
  private startedAt: number | null;
  private readonly firstPromptMs: number;
  private readonly off: () => void;

  /** `adopted`: the shell runs since before this daemon (see startedAt). */
  constructor(
    private readonly s: OutputStream,
    opts: { adopted?: boolean; firstPromptMs?: number } = {},
  ) {
    this.startedAt = opts.adopted ? null : performance.now();
    this.firstPromptMs = opts.firstPromptMs ?? FIRST_PROMPT_MS;
    this.off = s.on((e) => {
      if (e.type === "exit" && e.restarting) {
        this.startedAt = performance.now();
        this.marksPrompts = false;
      }
      if (e.type !== "mark") return;
      const m = e.mark;
      if (m.kind === "A" || m.kind === "B") {
        this.promptEnd = e.end;
        this.inCommand = false;
        this.marksPrompts = true;
      }
      if (m.kind === "D") this.inCommand = false;
      if (m.kind === "C") {
        this.inCommand = true;
        this.started =
          m.command !== undefined && EXEC_LINE.test(m.command) ? null : { command: m.command ?? null, at: m.time, from: e.end };
        this.promptEnd = null;
      } else if (m.kind === "D" && this.started) {
        this.done.push({
          command: this.started.command,
          exit_code: m.exit_code ?? null,
          started_at: this.started.at,
          ended_at: m.time,
          from: this.started.from,
          to: e.end,
        });
        if (this.done.length > MAX_COMMANDS) this.done.shift();
        this.started = null;
      } else if (m.kind === "A") this.started = null;
    });
  }

  /** Has the program reported any command or prompt (a shell with integration of its own counts)? */
  get seen(): boolean {
    return this.done.length > 0 || this.started !== null || this.s.tap.marks.length > 0;
  }

  /** The shell draws its prompts with marks (it drew one so), so a prompt to come will be marked too. */
  get drawsMarkedPrompts(): boolean {
    return this.marksPrompts;
  }

  /** Milliseconds left of the shell's first-prompt time (FIRST_PROMPT_MS from its start); 0 once it is over, and for an adopted shell. */
  firstPromptLeft(): number {
    return this.startedAt === null ? 0 : Math.max(0, this.startedAt + this.firstPromptMs - performance.now());
  }

  /**
   * Milliseconds before a shell that has marked no prompt is taken to mark none (0: it is, its
   * first-prompt time is over); null while that cannot be told: it marked one, or it is adopted.
   */
  unmarkedIn(): number | null {
    return this.marksPrompts || this.startedAt === null ? null : this.firstPromptLeft();
  }

  /**
   * Between a command's end (its D, or the shell's start) and the next prompt's mark: no command
   * runs and the prompt is not drawn yet, so a line typed now lands before it (shell-ready.ts).
   */
  get awaitingPrompt(): boolean {
    return this.promptEnd === null && !this.inCommand;
  }

  /** Where the prompt the shell is at now was drawn (its mark's end), if it drew it after output offset `since`. */
  promptAfter(since: number): number | null {
    return this.promptEnd !== null && this.promptEnd > since ? this.promptEnd : null;
  }

  /** The first command that finished after output offset `since`, once its output is in the log. */
  doneAfter(since: number): CommandRun | null {
    for (const c of this.done) if (c.to > since && c.to <= this.s.output.end) return c;
    return null;
  }

  /** A finished command with its output read back from the log. */
  describe(c: CommandRun): CommandDone {
    const from = Math.max(c.from, c.to - MAX_COMMAND_OUTPUT);
    const output = commandOutput(this.s.readOutput(from, c.to - from));
    return {
      command: c.command,
      exit_code: c.exit_code,
      output,
      truncated: from > c.from,
      started_at: c.started_at,
      ended_at: c.ended_at,
      duration_ms: new Date(c.ended_at).getTime() - new Date(c.started_at).getTime(),
    };
  }

  dispose(): void {
    this.off();
  }
}
