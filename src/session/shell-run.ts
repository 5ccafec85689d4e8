// exec.run: one command run inside a session's interactive shell, so `cd` and `export` persist
// between runs, with its stdout and stderr captured apart and its exit status read reliably.
//
// In bash and zsh with termd's hooks, the command is typed as itself, so the screen, the log, a
// recording and the history show what was run and nothing else. Before typing it, the run leaves
// a request beside the hooks (exec.PID, shell/ in the state dir); the hooks source it as the typed
// command starts (after its OSC 133 C), which saves the terminal's descriptors and sends the
// command's stdin, stdout and stderr to the run's files, with the call's env set. When it is done,
// the hooks' precmd puts the terminal back and sources the run's `a`: the env restored, the output
// shown (stdout, then stderr), then the done mark below. If no hook took the request (a DEBUG trap
// of the user's keeps termd's preexec out), the command ran on the terminal as typed; precmd then
// sources the request as `late`, whose mark makes the run read the command's output from the
// stream between its C and D marks (stdout and stderr together). Interrupted, the command ends and
// precmd runs as after any other. A command that typed would not read as it does from a file
// (several lines, an open quote that would leave the shell waiting for more, history expansion's
// `!`: hooksRequest) goes the way other shells' commands go:
//
// the command goes to a file in a private temp folder and the shell is typed one short line,
// ` . DIR/w`, sourcing a wrapper that runs `command . DIR/c <IN >DIR/o 2>DIR/e` in the shell and
// then prints the mark ESC ] 133 ; termd-done ; STATUS ; NONCE BEL, which the session's vt tap
// finds in the output stream and reports with its end offset (no second scan here). Why this shape:
// - sourcing, not typing the command: a long typed line would hit the tty's 4 KiB line limit
//   under sh, an unbalanced quote would leave the shell waiting for more (now it is a parse
//   error on the command's stderr), and the command stays off the screen and out of history;
// - the nonce appears in no typed text, so neither the echo nor a late mark of an earlier run
//   can end this one;
// - before the mark the wrapper moves the cursor back over its typed line and the prompt and
//   clears them, so the screen looks as if nothing had been typed (when the prompt's position
//   was known: the shell had drawn it and gone quiet, with the screen caught up).
//
// Interrupting (timeout, exec.cancel): ^C goes to the terminal, so the foreground job gets SIGINT
// as from a keyboard. An interactive shell then abandons the rest of the sourced wrapper, mark
// included, so after RECOVER_MS a line of its own prints the mark with $?; if that does not come
// either, the foreground process group (never the shell) gets SIGKILL.
import { closeSync, fstatSync, mkdtempSync, openSync, readSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import type { ExecResult, ExecRunInput } from "../protocol/schemas.ts";
import type { ProgramStream } from "./stream.ts";
import { MAX_EXEC_OUTPUT } from "./fresh-exec.ts";
import type { ShellCommands } from "./shell-commands.ts";
import { foregroundGroup } from "../pty/processes.ts";
import { needsPaste } from "./submit.ts";
import { promptQuiet } from "./shell-ready.ts";

/** How often a running command's output files are cut back to MAX_EXEC_OUTPUT. */
const CAP_EVERY_MS = 50;
/** After ^C: how long the wrapper's own mark may take before the mark is asked for apart. */
const RECOVER_MS = 250;
/** After that: how long before the foreground job gets SIGKILL, and then before giving up. */
const ESCALATE_MS = 2000;

/** What a run keeps of the session's ExecRunner from one run to the next. */
export interface RunnerMark {
  /** Output offset just past the last mark: the prompt the shell draws after it comes later. */
  markEnd: number;
}

/** A POSIX-shell single-quoted word. */
function sq(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

/** Up to `max` bytes of a file, as UTF-8 (invalid sequences replaced), and whether it was longer. */
function readCapped(path: string, max: number): { text: string; cut: boolean } {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return { text: "", cut: false };
  }
  try {
    const size = fstatSync(fd).size;
    const buf = Buffer.alloc(Math.min(size, max));
    let got = 0;
    while (got < buf.length) {
      const n = readSync(fd, buf, got, buf.length - got, got);
      if (n <= 0) break;
      got += n;
    }
    return { text: buf.subarray(0, got).toString("utf8"), cut: size > max };
  } finally {
    closeSync(fd);
  }
}

/** One exec.run in the session's shell, as the header above tells. */
export class ShellRun {
  readonly result: Promise<ExecResult>;
  private resolve!: (r: ExecResult) => void;
  private reject!: (err: unknown) => void;
  private readonly dir = mkdtempSync(join(tmpdir(), "termd-exec-"));
  private readonly nonce = crypto.randomUUID().replaceAll("-", "").slice(0, 16);
  private startedAt = 0;
  private done = false;
  private timedOut = false;
  private cancelled = false;
  private interrupting = false;
  private timer: Timer | undefined;
  /** Keeps the output files near MAX_EXEC_OUTPUT while the command runs; set when it cut one. */
  private capTimer: Timer | undefined;
  private cut = false;
  /** Woken by every mark (or the end), for the interrupt steps that wait on one. */
  private onMark: (() => void) | null = null;
  private readonly off: () => void;
  private readonly zsh: boolean;
  private readonly bash: boolean;
  /** The buffer row of the prompt the run's line was typed at, when its place was known. */
  private promptRow: number | null = null;
  /** The request the shell's hooks take (the command typed as itself), when there is one. */
  private request: string | null = null;
  /** Output offset where the command was typed. */
  private typedAt = 0;

  constructor(
    private readonly s: ProgramStream,
    private readonly runner: RunnerMark,
    private readonly commands: ShellCommands,
    private readonly pid: number | null,
    private readonly p: ExecRunInput,
    timeoutMs: number,
  ) {
    this.result = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    const shell = basename(s.command[0] ?? "").replace(/^-/, "");
    this.zsh = shell === "zsh";
    this.bash = shell === "bash";
    this.off = s.stream.on((e) => {
      if (e.type === "done_mark") this.doneMark(e.status, e.nonce, e.end);
      else if (e.type === "exit") this.finish(e.exit_code);
    });
    this.start(timeoutMs).catch((err) => {
      // The files could not be written (a full disk): the call fails; nothing was typed.
      if (this.done) return;
      this.done = true;
      clearTimeout(this.timer);
      this.reject(err);
    });
  }

  private async start(timeoutMs: number): Promise<void> {
    // The syntax check runs while the shell settles.
    const requested = this.hooksRequest();
    const atPrompt = await promptQuiet(this.s, this.runner.markEnd);
    const request = await requested;
    if (this.done) return;
    if (this.p.stdin !== undefined) writeFileSync(join(this.dir, "i"), this.p.stdin, { mode: 0o600 });
    let line: string;
    if (request !== null) {
      line = this.p.command.replace(/\n$/, "");
      writeFileSync(join(this.dir, "a"), this.after(), { mode: 0o600 });
      writeFileSync(request, this.before(request), { mode: 0o600 });
      this.request = request;
    } else {
      line = ` . ${sq(join(this.dir, "w"))}`;
      if (atPrompt) this.promptRow = this.cursorRow();
      const erase = atPrompt ? this.eraseOf(line) : "";
      writeFileSync(join(this.dir, "c"), this.p.command.endsWith("\n") ? this.p.command : this.p.command + "\n", { mode: 0o600 });
      writeFileSync(join(this.dir, "w"), this.wrapper(erase), { mode: 0o600 });
    }
    this.typedAt = this.s.stream.output.end;
    this.startedAt = performance.now();
    if (timeoutMs > 0) this.timer = setTimeout(() => this.interrupt("timeout", "SIGINT"), timeoutMs);
    this.capTimer = setInterval(() => this.capOutput(), CAP_EVERY_MS);
    try {
      this.s.writeInput(line + "\r");
    } catch {
      this.finish(this.s.exitCode);
    }
  }

  /**
   * printf's text that moves the cursor back over the prompt and `line` as the shell echoed them
   * (the cursor is after the prompt now) and clears from there, so nothing typed stays on the screen.
   */
  private eraseOf(line: string, fromRow: number | null = null): string {
    const { col } = this.s.stream.view.state.cursor;
    const below = fromRow === null ? 0 : Math.max(0, this.cursorRow() - fromRow);
    const rows = Math.floor((col + line.length - 1) / this.s.stream.size.cols) + 1 + below;
    return `\\033[${rows}A\\r\\033[J`;
  }

  /** The cursor's row in the whole buffer (scrollback included), which stays put as the screen scrolls. */
  private cursorRow(): number {
    const st = this.s.stream.view.state;
    return st.cursor.row + st.scrollback_total;
  }

  /**
   * bash puts the line that sourced a file of this run (` . DIR/w`) in its history, unless
   * HISTCONTROL or HISTIGNORE kept it out: it is taken out again, so the person's Up arrow and
   * `history` never show it. (zsh's hooks keep it out: shell/zshenv.zsh.)
   */
  private forgetLine(): string[] {
    if (!this.bash) return [];
    const dir = basename(this.dir);
    return [
      `__termd_h=$(HISTTIMEFORMAT= builtin history 1 2>/dev/null)`,
      `case $__termd_h in *${dir}/*) __termd_h=\${__termd_h#"\${__termd_h%%[! ]*}"}; builtin history -d "\${__termd_h%%[!0-9]*}" 2>/dev/null ;; esac; unset __termd_h`,
    ];
  }

  /**
   * Where the shell's hooks take a request to run the command typed as itself, or null: not bash
   * or zsh with termd's hooks, or a command that typed would not be one line the shell runs at once
   * as a sourced file would (several lines, control characters, an open quote: checked with
   * `SHELL -n -c`; a trailing backslash, which continues a typed line; `!`, which an interactive
   * shell's history expansion takes; `#` in zsh, a comment only where INTERACTIVE_COMMENTS is set).
   */
  private async hooksRequest(): Promise<string | null> {
    const s = this.s;
    const command = this.p.command.replace(/\n$/, "");
    if (s.hooksDir === null || this.pid === null || !(this.bash || this.zsh)) return null;
    if (command.trim() === "" || needsPaste(command) || command.endsWith("\\") || command.includes("!")) return null;
    if (this.zsh && command.includes("#")) return null;
    try {
      const check = Bun.spawn([s.command[0]!, "-n", "-c", command], { stdin: "ignore", stdout: "ignore", stderr: "ignore" });
      if ((await check.exited) !== 0) return null;
    } catch {
      return null; // the shell cannot be run apart (no descriptors left): sourced, as before
    }
    return join(s.hooksDir, `exec.${this.pid}`);
  }

  /** The call's env set on top of the shell's, each variable's old value kept for envRestore. */
  private envSet(): string[] {
    const lines: string[] = [];
    for (const [k, v] of Object.entries(this.p.env ?? {})) {
      lines.push(`if [ "\${${k}+x}" = x ]; then __termd_s_${k}=$${k}; __termd_h_${k}=1; else __termd_h_${k}=; fi`);
      lines.push(`${k}=${sq(v)}; export ${k}`);
    }
    return lines;
  }

  private envRestore(): string[] {
    return Object.keys(this.p.env ?? {}).map(
      (k) => `if [ -n "$__termd_h_${k}" ]; then ${k}=$__termd_s_${k}; else unset ${k}; fi; unset __termd_s_${k} __termd_h_${k}`,
    );
  }

  /**
   * The request the hooks source as the typed command starts: the terminal's descriptors kept
   * (the hooks put them back), the command's stdin and output the run's files. Sourced as `late
   * STATUS` by a prompt that finds it still there, it only says so with its mark.
   */
  private before(request: string): string {
    const f = (n: string) => sq(join(this.dir, n));
    const stdin = this.p.stdin !== undefined ? f("i") : "/dev/null";
    return [
      `command rm -f -- ${sq(request)}`,
      // Left by a daemon that died before its shell took it: the run is gone, nothing to do.
      `[ -d ${sq(this.dir)} ] || return 0`,
      `if [ "\${1-}" = late ]; then printf '\\033]133;termd-done;%d;${this.nonce}-late\\007' "$2"; return 0; fi`,
      `__termd_exec_after=${f("a")}`,
      ...this.envSet(),
      "exec {__termd_fo}>&1 {__termd_fe}>&2 {__termd_fi}<&0",
      `exec <${stdin} >>${f("o")} 2>>${f("e")}`,
      "",
    ].join("\n");
  }

  /** What the hooks source once the command is done (`$1` its status), the terminal back in place: the output shown, then the mark. */
  private after(): string {
    const f = (n: string) => sq(join(this.dir, n));
    return [
      ...this.envRestore(),
      `command cat ${f("o")} 2>/dev/null; command cat ${f("e")} >&2 2>/dev/null`,
      `printf '\\033]133;termd-done;%d;${this.nonce}\\007' "$1"`,
      "",
    ].join("\n");
  }

  /** The sourced wrapper: per-run variables set and restored around the command, then the mark. */
  private wrapper(erase: string): string {
    const f = (n: string) => sq(join(this.dir, n));
    const stdin = this.p.stdin !== undefined ? f("i") : "/dev/null";
    const lines: string[] = [...this.forgetLine(), ...this.envSet()];
    // `command .`: an error in a special builtin (a syntax error in the file, `export 1x`) then
    // fails the command instead of aborting the whole wrapper, mark and all (dash, POSIX sh).
    // zsh's `command` would look for an external `.`, and zsh never aborts that way.
    const source = this.zsh ? "." : "command .";
    // Appending, so the files can be cut back while the command writes (capOutput).
    lines.push(`${source} ${f("c")} <${stdin} >>${f("o")} 2>>${f("e")}`);
    // The erase goes first, so nothing of the wrapper's comes after the mark: what follows it is the
    // prompt. Output that clears the screen (`clear`, `reset`, `tput clear`) was meant for the
    // terminal: it goes there too, after the erase, so the screen is cleared as the person expects.
    const replay = `[ -s ${f("o")} ] && command grep -q -e '\x1b\\[[23]J' -e '\x1bc' ${f("o")} 2>/dev/null && command cat ${f("o")}`;
    lines.push("__termd_rc=$?", ...this.envRestore());
    lines.push(`printf '${erase}'; ${replay}`, `printf '\\033]133;termd-done;%d;${this.nonce}\\007' "$__termd_rc"`, "unset __termd_rc");
    return lines.join("\n") + "\n";
  }

  /** A done mark the tap found; `end` is the output offset just past it. Another run's is ignored. */
  private doneMark(status: number, nonce: string, end: number): void {
    if (this.done) return;
    if (nonce === `${this.nonce}-late`) {
      // No hook took the request: the command's output is what the terminal got between its marks.
      const ran = this.commands.doneAfter(this.typedAt);
      this.runner.markEnd = end;
      return this.finish(status, ran ? this.commands.describe(ran).output : "");
    }
    if (nonce !== this.nonce) return;
    this.runner.markEnd = end;
    this.finish(status);
  }

  /** Stops the command: ^C (or `signal` to the foreground job), then the recovery steps above. */
  async interrupt(reason: "timeout" | "cancel", signal: string): Promise<void> {
    if (this.done || this.interrupting) return;
    this.interrupting = true;
    if (reason === "timeout") this.timedOut = true;
    else this.cancelled = true;
    // Not typed yet (still waiting for the prompt): it never will be.
    if (this.startedAt === 0) return this.finish(null);
    const fg = foregroundGroup(this.pid);
    try {
      // SIGINT goes through the terminal, as a keyboard's ^C does; other signals to the job itself.
      if (signal === "SIGINT" || fg === null || fg === this.pid) this.s.writeInput("\x03");
      else process.kill(-fg, signal);
    } catch {}
    if (await this.markWithin(RECOVER_MS)) return;
    try {
      // The mark asked for by a file of this run too, so its typed line is forgotten as the first
      // was, and erased back to the first's prompt (the wrapper that would have erased that is gone).
      const line = ` . ${sq(join(this.dir, "r"))}`;
      const lines = [
        `__termd_rc=$?`,
        ...this.forgetLine(),
        `printf '${this.eraseOf(line, this.promptRow)}\\033]133;termd-done;%d;${this.nonce}\\007' "$__termd_rc"`,
        "unset __termd_rc",
      ];
      writeFileSync(join(this.dir, "r"), lines.join("\n") + "\n", { mode: 0o600 });
      this.s.writeInput(line + "\r");
    } catch {}
    if (await this.markWithin(ESCALATE_MS)) return;
    const stuck = foregroundGroup(this.pid);
    if (stuck !== null && stuck !== this.pid) {
      try {
        process.kill(-stuck, "SIGKILL");
      } catch {}
      if (await this.markWithin(ESCALATE_MS)) return;
    }
    this.finish(null);
  }

  private markWithin(ms: number): Promise<boolean> {
    if (this.done) return Promise.resolve(true);
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.onMark = null;
        resolve(this.done);
      }, ms);
      this.onMark = () => {
        clearTimeout(t);
        resolve(true);
      };
    });
  }

  /**
   * The reply keeps the first MAX_EXEC_OUTPUT bytes of each stream: the files need hold no more.
   * A command that writes without end would otherwise fill the disk under the temp folder.
   */
  private capOutput(): void {
    for (const name of ["o", "e"]) {
      const path = join(this.dir, name);
      try {
        if (statSync(path).size > MAX_EXEC_OUTPUT) {
          truncateSync(path, MAX_EXEC_OUTPUT);
          this.cut = true;
        }
      } catch {}
    }
  }

  /** `shown`: the command's output as the terminal got it, when no file holds it. */
  private finish(exitCode: number | null, shown?: string): void {
    if (this.done) return;
    this.done = true;
    clearTimeout(this.timer);
    clearInterval(this.capTimer);
    const out = shown !== undefined ? { text: shown, cut: false } : readCapped(join(this.dir, "o"), MAX_EXEC_OUTPUT);
    const err = readCapped(join(this.dir, "e"), MAX_EXEC_OUTPUT);
    this.resolve({
      output: out.text,
      stderr: err.text,
      exit_code: exitCode,
      duration_ms: this.startedAt ? Math.round(performance.now() - this.startedAt) : 0,
      timed_out: this.timedOut,
      cancelled: this.cancelled,
      truncated: out.cut || err.cut || this.cut,
    });
    this.onMark?.();
  }

  dispose(): void {
    this.off();
    clearTimeout(this.timer);
    clearInterval(this.capTimer);
    // A request no shell took (the command was never typed, or the shell ended first) goes too.
    if (this.request !== null) rmSync(this.request, { force: true });
    rmSync(this.dir, { recursive: true, force: true });
  }
}
