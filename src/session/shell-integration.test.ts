import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { integrate } from "./shell-integration.ts";

const dir = mkdtempSync(join(tmpdir(), "termd-hooks-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("bash gets --rcfile (long options first); a user's --rcfile is what the hooks source; --norc loads them from PROMPT_COMMAND", () => {
  const rc = join(dir, "termd.bash");
  expect(integrate(["/bin/bash", "-i", "--noprofile"], {}, dir)).toEqual({
    kind: "bash",
    argv: ["/bin/bash", "--noprofile", "--rcfile", rc, "-i"],
    env: {},
  });
  expect(readFileSync(rc, "utf8")).toContain("133;D");
  expect(integrate(["bash", "--rcfile", "/my/rc", "-o", "vi"], {}, dir)).toEqual({
    kind: "bash",
    argv: ["bash", "--rcfile", rc, "-o", "vi"],
    env: { TERMD_BASH_RCFILE: "/my/rc" },
  });
  expect(integrate(["bash", "--norc"], { PROMPT_COMMAND: "mine" }, dir)).toEqual({
    kind: "bash",
    argv: ["bash", "--norc"],
    env: { TERMD_BASH_LOADER: "1", PROMPT_COMMAND: `. '${rc}'`, TERMD_BASH_USER_PC: "mine" },
  });
});

test("zsh keeps its argv and gets ZDOTDIR, remembering the user's; fish gets --init-command", () => {
  expect(integrate(["zsh"], {}, dir)).toEqual({ kind: "zsh", argv: ["zsh"], env: { ZDOTDIR: join(dir, "zsh") } });
  expect(integrate(["zsh", "-i"], { ZDOTDIR: "/home/me/.config/zsh" }, dir)?.env).toEqual({
    ZDOTDIR: join(dir, "zsh"),
    TERMD_ZDOTDIR: "/home/me/.config/zsh",
  });
  expect(readFileSync(join(dir, "zsh", ".zshenv"), "utf8")).toContain("add-zsh-hook");
  expect(integrate(["/usr/bin/fish", "-i"], {}, dir)?.argv).toEqual([
    "/usr/bin/fish",
    "--init-command",
    `source '${join(dir, "termd.fish")}'`,
    "-i",
  ]);
});

test("a shell that reads no rc file as started, and any other program, is left alone", () => {
  for (const argv of [
    ["bash", "-c", "true"],
    ["bash", "-ic", "true"],
    ["bash", "script.sh"],
    ["bash", "-l"],
    ["bash", "--login"],
    ["zsh", "-f"],
    ["zsh", "-c", "x"],
    ["fish", "-c", "x"],
    ["fish", "x.fish"],
    ["sh"],
    ["dash"],
    ["vim"],
    ["python3"],
  ]) {
    expect(integrate(argv, {}, dir)).toBeNull();
  }
  // A value of an option that takes one is no script.
  expect(integrate(["bash", "-O", "extglob"], {}, dir)?.kind).toBe("bash");
});
