// Shell integration: bash, zsh and fish started by termd get hooks that report prompts and
// commands with OSC 133 marks and the directory with OSC 7 (the vt tap reads them). The user's rc
// files still load, and nothing is written into them: the hooks live in files termd writes into
// its state dir (shell/), and the shell is pointed at them the way each allows —
//   bash: --rcfile OURS, which sources ~/.bashrc (or the --rcfile the user gave) first;
//   zsh:  ZDOTDIR=OURS, whose .zshenv puts ZDOTDIR back and sources the user's .zshenv;
//   fish: --init-command 'source OURS', which fish runs after its config.
// A shell that would read no rc file anyway is left alone: one running a script or -c, a login
// bash (it reads profiles, not --rcfile), zsh -f.
import { mkdirSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import bashHooks from "./shell/termd.bash" with { type: "text" };
import zshHooks from "./shell/zshenv.zsh" with { type: "text" };
import fishHooks from "./shell/termd.fish" with { type: "text" };

export type ShellKind = "bash" | "zsh" | "fish";

export interface Integrated {
  /** What to execute instead of the session's command. */
  argv: string[];
  /** Variables to add to the session's environment. */
  env: Record<string, string>;
  kind: ShellKind;
}

/** Options that take a value in each shell (so the value is not taken for a script's name). */
const VALUED: Record<ShellKind, Set<string>> = {
  bash: new Set(["-o", "+o", "-O", "+O", "--rcfile", "--init-file"]),
  zsh: new Set(["-o", "+o"]),
  fish: new Set(["-C", "--init-command", "-d", "--debug", "-o", "--debug-output", "--features", "-f", "--profile", "--profile-startup"]),
};

/**
 * The dirs this process wrote the hooks into. Process-wide, not per daemon: keyed by the dir, and
 * every daemon of this process would write the same bytes there (a handover to another version
 * is a new process, which writes them again).
 */
const written = new Set<string>();

/** Writes the hook files into `dir` once (so they always match this version). */
function hookFiles(dir: string): { bash: string; zdotdir: string; fish: string } {
  const zdotdir = join(dir, "zsh");
  const paths = { bash: join(dir, "termd.bash"), zdotdir, fish: join(dir, "termd.fish") };
  if (!written.has(dir)) {
    mkdirSync(zdotdir, { recursive: true, mode: 0o700 });
    writeFileSync(paths.bash, bashHooks, { mode: 0o600 });
    writeFileSync(join(zdotdir, ".zshenv"), zshHooks, { mode: 0o600 });
    writeFileSync(paths.fish, fishHooks, { mode: 0o600 });
    written.add(dir);
  }
  return paths;
}

/** The shell argv runs, when it is one termd integrates with, and its arguments leave it interactive. */
function shellOf(argv: string[]): { kind: ShellKind; args: string[] } | null {
  const name = basename(argv[0] ?? "").replace(/^-/, "");
  const kind = name === "bash" || name === "zsh" || name === "fish" ? name : null;
  if (!kind) return null;
  const args = argv.slice(1);
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--") return args.length > i + 1 ? null : { kind, args };
    if (VALUED[kind].has(a)) {
      i++;
      continue;
    }
    if (!a.startsWith("-") && !a.startsWith("+")) return null; // a script
    if (a === "-c" || a === "--command" || (/^-[a-zA-Z]+$/.test(a) && a.includes("c") && kind !== "fish")) return null;
    if (kind === "fish" && (a === "-c" || a.startsWith("--command"))) return null;
    if (kind === "bash" && (a === "-l" || a === "--login" || /^-[a-zA-Z]*l/.test(a))) return null;
    if (kind === "zsh" && (a === "-f" || a === "--no-rcs" || a === "-l" || a === "--login")) return null;
  }
  return { kind, args };
}

/**
 * How to start `argv` with the hooks, or null when it is not a shell termd integrates with (or
 * one that reads no rc file as started). `env` is the session's environment; `dir` where the hook
 * files go.
 */
export function integrate(argv: string[], env: Record<string, string>, dir: string): Integrated | null {
  const shell = shellOf(argv);
  if (!shell) return null;
  const files = hookFiles(dir);
  const program = argv[0]!;
  if (shell.kind === "bash") {
    // --norc reads no rc file at all, /etc/bash.bashrc included, which --rcfile would bring back:
    // there the first prompt's PROMPT_COMMAND loads the hooks instead.
    if (shell.args.includes("--norc")) {
      const extra: Record<string, string> = { TERMD_BASH_LOADER: "1", PROMPT_COMMAND: `. ${shQuote(files.bash)}` };
      if (env.PROMPT_COMMAND !== undefined) extra.TERMD_BASH_USER_PC = env.PROMPT_COMMAND;
      return { kind: "bash", argv, env: extra };
    }
    const args: string[] = [];
    const extra: Record<string, string> = {};
    for (let i = 0; i < shell.args.length; i++) {
      const a = shell.args[i]!;
      if (a === "--rcfile" || a === "--init-file") extra.TERMD_BASH_RCFILE = shell.args[++i] ?? "";
      else args.push(a);
    }
    // bash's long options must come before its short ones.
    const long = args.filter((a) => a.startsWith("--"));
    const short = args.filter((a) => !a.startsWith("--"));
    return { kind: "bash", argv: [program, ...long, "--rcfile", files.bash, ...short], env: extra };
  }
  if (shell.kind === "zsh") {
    const extra: Record<string, string> = { ZDOTDIR: files.zdotdir };
    if (env.ZDOTDIR !== undefined) extra.TERMD_ZDOTDIR = env.ZDOTDIR;
    return { kind: "zsh", argv, env: extra };
  }
  return { kind: "fish", argv: [program, "--init-command", `source ${quote(files.fish)}`, ...shell.args], env: {} };
}

/** A POSIX-shell single-quoted word. */
function shQuote(s: string): string {
  return `'${s.replaceAll("'", "'\\''")}'`;
}

/** A fish single-quoted word. */
function quote(s: string): string {
  return `'${s.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;
}
