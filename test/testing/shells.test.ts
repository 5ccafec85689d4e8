// Shell presets: launch.shell() starts bash, zsh or fish with no rc files, a `$ ` prompt and
// termd's shell integration, and resolves at the first prompt, so a test types at once. The same
// test runs in each shell (test.each), which is also how a test file runs across several shells.
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { connect } from "../../src/client/index.ts";
import { launch, SHELLS } from "../../src/testing/index.ts";

// A HOME whose rc files would show if they were read.
const home = mkdtempSync(join(tmpdir(), "termd-shells-home-"));
for (const rc of [".bashrc", ".bash_profile", ".zshrc", ".zshenv"]) writeFileSync(join(home, rc), "echo RC-LOADED\n");
const fishConfig = join(home, ".config", "fish");
mkdirSync(fishConfig, { recursive: true });
writeFileSync(join(fishConfig, "config.fish"), "echo RC-LOADED\n");
afterAll(() => rmSync(home, { recursive: true, force: true }));

test.each(SHELLS)("%s starts at its first prompt with no rc files, and reports its commands to termd", async (shell) => {
  await using t = await launch.shell(shell, { env: { HOME: home, XDG_CONFIG_HOME: join(home, ".config") } });
  // Resolved at the prompt: no waiting before typing, and the first keys are not echoed twice.
  expect((await t.screen()).text).toBe("$");
  await t.submit("printf 'hi-%s\\n' 42", { waitFor: "hi-42" });
  await expect(t).toShowText(/^\$ $/m);
  await expect(t).not.toShowText("RC-LOADED", { timeout: 50 });
  using c = await connect(t.socket);
  expect((await c.call("session.info", { session: t.session })).shell_integration).toBe(shell);
});

test("launch.shell takes its shell from TERMD_TEST_SHELL, and refuses a shell it has no preset for", async () => {
  process.env.TERMD_TEST_SHELL = "zsh";
  try {
    await using t = await launch.shell(undefined, { prompt: "% ready " });
    await t.submit("echo $ZSH_NAME", { waitFor: /^zsh$/m });
    await expect(t).toShowText("% ready ");
    process.env.TERMD_TEST_SHELL = "tcsh";
    await expect(launch.shell()).rejects.toThrow('launch.shell: "tcsh" is not bash, zsh or fish (from TERMD_TEST_SHELL)');
  } finally {
    delete process.env.TERMD_TEST_SHELL;
  }
});

test("a zsh started in the zsh preset reads the preset's ZDOTDIR too, which goes when the terminal closes", async () => {
  const t = await launch.shell("zsh", { env: { HOME: home } });
  await t.submit('echo "dir=$ZDOTDIR level=$SHLVL"', { waitFor: /^dir=\S+ level=\d+$/m });
  const [, zdotdir, level] = /^dir=(\S+) level=(\d+)$/m.exec((await t.screen()).text)!;
  // In the private daemon's folder, which its guard removes even if this process is killed.
  expect(dirname(zdotdir!)).toBe(dirname(t.socket));
  await t.submit("zsh");
  const nested = await t.submit("[[ -o globalrcs ]] || echo NO-GLOBAL-RCS; echo nested=$SHLVL", {
    waitFor: `nested=${Number(level) + 1}`,
  });
  // The nested zsh read the preset's .zshenv: no /etc/zsh/zshrc, no ~/.zshrc.
  expect(await t.line(nested!.row - 1)).toBe("NO-GLOBAL-RCS");
  await expect(t).not.toShowText("RC-LOADED", { timeout: 50 });
  expect(existsSync(zdotdir!)).toBe(true);
  await t.close();
  expect(existsSync(zdotdir!)).toBe(false);
});

test.each(SHELLS)("%s with rc: true loads its rc files after all", async (shell) => {
  await using t = await launch.shell(shell, { rc: true, env: { HOME: home, XDG_CONFIG_HOME: join(home, ".config") } });
  await expect(t).toShowText("RC-LOADED");
});
