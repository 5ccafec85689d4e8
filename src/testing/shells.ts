// Shell presets, `launch.shell("bash" | "zsh" | "fish")`: a shell with no rc files and a plain
// prompt (`$ ` unless told), termd's shell integration on, and history kept out of the user's
// files; it resolves once the first prompt is drawn (shell integration's OSC 133 B mark), so a
// test starts typing at a prompt. Each shell is kept from its rc files its own way:
// - bash: `--norc --noprofile` (termd loads its hooks from the first prompt's PROMPT_COMMAND);
// - zsh: ZDOTDIR is a folder of ours whose .zshenv turns GLOBAL_RCS off, so no /etc/zsh/zshrc,
//   no ~/.zshrc (zsh -f would also turn off termd's hooks, which live in a ZDOTDIR);
// - fish: `--no-config`, with the prompt and an empty greeting set by `--init-command`.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
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

/**
 * A ZDOTDIR of its own in `scratch` whose .zshenv turns off the rc files after it and sets the
 * prompt. It stays as long as the shell: ZDOTDIR stays exported, so a zsh started inside the
 * test's shell reads it too (and not the system's rc files).
 */
function quietZdotdir(scratch: string, ps1: string): string {
  const dir = mkdtempSync(join(scratch, "termd-testing-zsh-"));
  writeFileSync(join(dir, ".zshenv"), `unsetopt GLOBAL_RCS\nPS1='${ps1.replaceAll("'", "'\\''")}'\n`);
  return dir;
}

const fishWord = (s: string) => `'${s.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;

export interface ShellCommand {
  argv: string[];
  env: Record<string, string>;
  /** Removes the files the shell reads (call it when its terminal closes, or if it never started). */
  removeFiles(): void;
}

/** The argv and environment that start `name` as the preset does; `scratch`, where to make files it needs. */
export function shellCommand(name: ShellName, opts: ShellPreset, scratch: string): ShellCommand {
  const prompt = opts.prompt ?? "$ ";
  if (name === "bash") {
    // PS1's backslash escapes and expansions, quoted away (`\$` would be `#` for root).
    const ps1 = prompt.replace(/[\\$`]/g, (c) => (c === "\\" ? "\\\\" : `\\${c.charCodeAt(0).toString(8).padStart(3, "0")}`));
    return { argv: opts.rc ? ["bash"] : ["bash", "--norc", "--noprofile"], env: { PS1: ps1, HISTFILE: "" }, removeFiles() {} };
  }
  if (name === "zsh") {
    const ps1 = prompt.replaceAll("%", "%%");
    if (opts.rc) return { argv: ["zsh"], env: { PS1: ps1 }, removeFiles() {} };
    const zdotdir = quietZdotdir(scratch, ps1);
    return { argv: ["zsh"], env: { ZDOTDIR: zdotdir }, removeFiles: () => rmSync(zdotdir, { recursive: true, force: true }) };
  }
  const init = `set -g fish_greeting; function fish_prompt; printf '%s' ${fishWord(prompt)}; end`;
  return { argv: ["fish", "--private", ...(opts.rc ? [] : ["--no-config"]), "--init-command", init], env: {}, removeFiles() {} };
}

export function isShellName(s: string | undefined): s is ShellName {
  return s === "bash" || s === "zsh" || s === "fish";
}
