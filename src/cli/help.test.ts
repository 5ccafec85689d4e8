import { expect, test } from "bun:test";
import { CLIENT_COMMANDS } from "./commands/index.ts";
import { cliCommand } from "./command.ts";
import { flagLines, helpOf, usageOf } from "./help.ts";

const cmd = cliCommand({
  name: "demo",
  summary: "a demo",
  help: "Does a demo.",
  args: "SESSION",
  trailing: "[-- CMD]",
  json: true,
  flags: {
    name: { kind: "string", short: "n", value: "NAME", help: "the name" },
    env: { kind: "string", repeat: true, value: "K=V", help: "a variable" },
    rows: { kind: "number", help: "rows" },
    force: { kind: "boolean", help: "a long help text that wraps ".repeat(6).trim() },
  },
  run: async () => 0,
});

test("the usage line comes from the flag table: values, repeats, --json and what trails", () => {
  expect(usageOf(cmd)).toBe("termd demo SESSION [--name NAME] [--env K=V]... [--rows N] [--force] [--json] [-- CMD]");
});

test("each flag's help stands beside it in one column, wrapped under itself", () => {
  const lines = flagLines(cmd.flags);
  expect(lines.slice(0, 3)).toEqual(["  -n, --name NAME  the name", "  --env K=V        a variable", "  --rows N         rows"]);
  expect(lines.length).toBeGreaterThan(4);
  for (const l of lines) expect(l.length).toBeLessThanOrEqual(100);
  expect(lines.slice(3).every((l, i) => (i === 0 ? l.startsWith("  --force  ") : l.startsWith(" ".repeat(19))))).toBe(true);
  expect(helpOf(cmd)).toStartWith(`usage: ${usageOf(cmd)}\n\nDoes a demo.\n\n  -n, --name NAME`);
});

test("every command's --help names each of its flags; each is listed under its own name", async () => {
  for (const [name, load] of Object.entries(CLIENT_COMMANDS)) {
    const c = await load();
    expect(c.name).toBe(name);
    const help = helpOf(c);
    for (const name of Object.keys(c.flags)) expect(help).toContain(`--${name}`);
  }
});
