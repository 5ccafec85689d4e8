// Shell presets, `launch.shell("bash" | "zsh" | "fish")`: a shell with no rc files and a plain
// prompt (`$ ` unless told), termd's shell integration on, and history kept out of the user's
// files; it resolves once the first prompt is drawn (shell integration's OSC 133 B mark), so a
// test starts typing at a prompt. Each shell is kept from its rc files its own way:
// - bash: `--norc --noprofile` (termd loads its hooks from the first prompt's PROMPT_COMMAND);
// - zsh: ZDOTDIR is a folder of ours whose .zshenv turns GLOBAL_RCS off, so no /etc/zsh/zshrc,
//   no ~/.zshrc (zsh -f would also turn off termd's hooks, which live in a ZDOTDIR);
// - fish: `--no-config`, with the prompt and an empty greeting set by `--init-command`.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export type ShellName = "bash" | "zsh" | "fish";

export const SHELLS: readonly ShellName[] = ["bash", "zsh", "fish"];

/** What a preset adds to launch()'s options (launch.ts's ShellOptions are both). */
export interface ShellPreset {
  /** Load the shell's rc files as a login would not but an interactive shell would (default false). */
  rc?: boolean;
  /** The prompt, as literal text (default "$ "); with `rc: true` the rc files may set their own. */
  prompt?: string;
}

/** A ZDOTDIR in `scratch` whose .zshenv turns off the rc files after it and sets the prompt. */
function quietZdotdir(scratch: string): string {
  const dir = join(scratch, "zsh");
  if (!existsSync(join(dir, ".zshenv"))) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(join(dir, ".zshenv"), "unsetopt GLOBAL_RCS\nPS1=$TERMD_TESTING_PROMPT\nunset TERMD_TESTING_PROMPT\n");
  }
  return dir;
}

const fishWord = (s: string) => `'${s.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;

/** The argv and environment that start `name` as the preset does; `scratch`, a folder for files it needs. */
export function shellCommand(name: ShellName, opts: ShellPreset, scratch: string): { argv: string[]; env: Record<string, string> } {
  const prompt = opts.prompt ?? "$ ";
  if (name === "bash") {
    // PS1's backslash escapes and expansions, quoted away (`\$` would be `#` for root).
    const ps1 = prompt.replace(/[\\$`]/g, (c) => (c === "\\" ? "\\\\" : `\\${c.charCodeAt(0).toString(8).padStart(3, "0")}`));
    return { argv: opts.rc ? ["bash"] : ["bash", "--norc", "--noprofile"], env: { PS1: ps1, HISTFILE: "" } };
  }
  if (name === "zsh") {
    const ps1 = prompt.replaceAll("%", "%%");
    return opts.rc
      ? { argv: ["zsh"], env: { PS1: ps1 } }
      : { argv: ["zsh"], env: { ZDOTDIR: quietZdotdir(scratch), TERMD_TESTING_PROMPT: ps1 } };
  }
  const init = `set -g fish_greeting; function fish_prompt; printf '%s' ${fishWord(prompt)}; end`;
  return { argv: ["fish", "--private", ...(opts.rc ? [] : ["--no-config"]), "--init-command", init], env: {} };
}

export function isShellName(s: string | undefined): s is ShellName {
  return s === "bash" || s === "zsh" || s === "fish";
}
