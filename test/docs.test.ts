// The docs against the code: every native method (with its params), event and error is in
// docs/protocol.md, every CLI command and flag in docs/cli.md, every MCP tool (with its arguments)
// in docs/mcp.md, every interminai subcommand in docs/dialects.md, every folder under src/ in
// docs/architecture.md, every environment variable the source reads somewhere in the docs, and
// every relative link (with its #anchor) in README.md and docs/*.md resolves, and so does every
// path a comment in src/, test/ or scripts/ names. The lists come from the tables the code runs on,
// so a new method, command or flag fails here until it is documented. No daemon: the tables are
// imported, and the CLI's command list is read from `termd --help`.
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { COMMANDS } from "../src/daemon/commands/index.ts";
import { APP_CODES, JSONRPC } from "../src/protocol/errors.ts";
import { EVENT_TYPES } from "../src/protocol/schemas.ts";
import { CLIENT_COMMANDS } from "../src/cli/commands/index.ts";
import { daemonCommand } from "../src/cli/commands/daemon.ts";
import { mcpCommand } from "../src/cli/commands/mcp.ts";
import schemaCommand from "../src/cli/commands/schema.ts";
import { interminaiCommand } from "../src/cli/interminai/command.ts";
import { SUBCOMMANDS as INTERMINAI_SUBCOMMANDS } from "../src/cli/interminai/main.ts";
import { TOOLS } from "../src/mcp/tools/index.ts";
import { jsonSchemaOf } from "../src/protocol/json-schema.ts";
import { loadCommands, type CliCommand } from "../src/cli/command.ts";

const ROOT = join(import.meta.dir, "..");
const DOCS = join(ROOT, "docs");
const read = (path: string) => readFileSync(join(ROOT, path), "utf8");
/** The top-level params a schema takes, as `termd schema` and MCP hosts see them. */
const paramNames = (schema: Parameters<typeof jsonSchemaOf>[0]): string[] =>
  Object.keys((jsonSchemaOf(schema).properties as object | undefined) ?? {});

/** The row of a doc's table that starts with `name`. */
const rowOf = (doc: string, name: string): string => doc.split("\n").find((l) => l.startsWith(`| \`${name}\``)) ?? "";

/** Every path under src/, relative to the repository. */
const srcPaths = (readdirSync(join(ROOT, "src"), { recursive: true }) as string[]).map((p) => join("src", p));

const docFiles = [
  "README.md",
  ...readdirSync(DOCS)
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

/** Markdown without its fenced code blocks: headings and links are looked for outside them. */
function prose(md: string): string {
  return md.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens; repeats get -1, -2. */
function anchors(md: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const [, text] of prose(md).matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const base = text!
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, "")
      .replace(/ /g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

describe("docs/protocol.md", () => {
  const doc = read("docs/protocol.md");

  test("names every method of the daemon's command table", () => {
    const missing = [...COMMANDS.keys()].filter((m) => !doc.includes(`\`${m}\``));
    expect(missing).toEqual([]);
  });

  test("gives every method's params in its row of the method table", () => {
    const missing = [...COMMANDS].flatMap(([name, c]) =>
      paramNames(c.params)
        .filter((p) => !new RegExp(`\\b${p}\\b`).test(rowOf(doc, name)))
        .map((p) => `${name} ${p}`),
    );
    expect(missing).toEqual([]);
  });

  test("names every event a subscriber can ask for, with what it carries", () => {
    const missing = EVENT_TYPES.filter(
      (e) => e !== "*" && !(e === "output" ? doc.includes("Output events carry `{") : doc.includes(`\`${e} {`)),
    );
    expect(missing).toEqual([]);
  });

  test("names every error, with its code", () => {
    const missing = [
      ...Object.entries(APP_CODES).filter(([name, code]) => !doc.includes(`\`${name}\``) || !doc.includes(String(code))),
      ...Object.entries(JSONRPC).filter(([, code]) => !doc.includes(`\`${code}\``)),
    ].map(([name]) => name);
    expect(missing).toEqual([]);
  });
});

const clientCommands = await loadCommands(CLIENT_COMMANDS);

describe("docs/cli.md", () => {
  const doc = read("docs/cli.md");
  // The full binary's command list is main.ts's; this builds the same list from the same modules
  // (daemon and mcp take how to run a daemon and reach one, which listing them does not need).
  const commands: CliCommand[] = [
    ...clientCommands,
    daemonCommand(() => import("../src/server/daemon-host.ts")),
    mcpCommand(async () => {
      throw new Error("not called");
    }),
    schemaCommand,
    interminaiCommand,
  ];

  test("knows every command `termd --help` lists", () => {
    // --help never connects; the socket is one nobody listens on, so a bug there cannot reach the user's daemon.
    const r = Bun.spawnSync([process.execPath, join(ROOT, "src/cli/main.ts"), "--help"], {
      env: { ...process.env, TERMD_SOCKET: "/nonexistent/termd-docs-test.sock" },
    });
    expect(r.exitCode).toBe(0);
    // Commands, not the global flags listed after them.
    const listed = [...r.stdout.toString().matchAll(/^ {2}([^\s-]\S*) {2,}/gm)].map((m) => m[1]);
    expect(listed.length).toBeGreaterThan(10);
    expect(listed.toSorted()).toEqual(commands.map((c) => c.name).toSorted());
  });

  test("documents every command and every flag it takes", () => {
    const missing = commands.flatMap((c) => [
      ...(doc.includes(`termd ${c.name}`) ? [] : [`termd ${c.name}`]),
      ...Object.entries(c.flags).flatMap(([flag, spec]) => [
        ...(doc.includes(`--${flag}`) ? [] : [`termd ${c.name} --${flag}`]),
        ...(spec.short && !doc.includes(`-${spec.short}`) ? [`termd ${c.name} -${spec.short}`] : []),
      ]),
    ]);
    expect(missing).toEqual([]);
  });
});

test("docs/mcp.md gives every MCP tool with its arguments", () => {
  const doc = read("docs/mcp.md");
  const missing = TOOLS.flatMap((t) => {
    const row = rowOf(doc, t.name);
    return row === ""
      ? [t.name]
      : paramNames(t.params)
          .filter((p) => !new RegExp(`\\b${p}\\b`).test(row))
          .map((p) => `${t.name} ${p}`);
  });
  expect(missing).toEqual([]);
});

test("docs/dialects.md documents every interminai subcommand", () => {
  const doc = read("docs/dialects.md");
  expect(INTERMINAI_SUBCOMMANDS.map((s) => s.name).filter((name) => !doc.includes(`interminai ${name}`))).toEqual([]);
});

test("every environment variable the source reads is documented", () => {
  const names = new Set<string>();
  for (const path of srcPaths.filter((p) => p.endsWith(".ts") && !p.endsWith(".test.ts"))) {
    for (const m of read(path).matchAll(/\benv\.([A-Z][A-Z0-9_]+)|\benv\[["']([A-Z][A-Z0-9_]+)["']\]/g)) names.add((m[1] ?? m[2])!);
  }
  expect(names.size).toBeGreaterThan(10);
  const all = docFiles.map(read).join("\n");
  expect([...names].filter((name) => !new RegExp(`\\b${name}\\b`).test(all)).toSorted()).toEqual([]);
});

test("every relative link and anchor in README.md and docs/*.md resolves", () => {
  const broken: string[] = [];
  for (const file of docFiles) {
    for (const [, target] of prose(read(file)).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target!)) continue; // https:, mailto: …
      const [path, anchor] = target!.split("#", 2) as [string, string | undefined];
      const to = path === "" ? join(ROOT, file) : resolve(dirname(join(ROOT, file)), decodeURIComponent(path));
      if (!existsSync(to)) {
        broken.push(`${file}: ${target} (no ${relative(ROOT, to)})`);
        continue;
      }
      if (anchor !== undefined && !(to.endsWith(".md") && anchors(readFileSync(to, "utf8")).has(anchor))) {
        broken.push(`${file}: ${target} (no heading #${anchor} in ${relative(ROOT, to)})`);
      }
    }
  }
  expect(broken).toEqual([]);
});

test("README.md stays a front page", () => {
  expect(read("README.md").split("\n").length).toBeLessThanOrEqual(300);
});

test("docs/architecture.md explains every folder under src/", () => {
  const doc = read("docs/architecture.md");
  const folders = srcPaths.filter((p) => statSync(join(ROOT, p)).isDirectory());
  expect(folders.length).toBeGreaterThan(10);
  expect(folders.filter((f) => !doc.includes(`\`${f}/\``))).toEqual([]);
});

test("every file a comment in src/, test/ or scripts/ names by its path is in the repository", () => {
  // A document, or a source file named with its folder, from the repository's root, src/ or the
  // file's own folder: what is outside the repository is no reference. NAME and x are placeholders.
  const PATH = /(?<![\w/.@-])((?:\.\.?\/)*(?:[\w.-]+\/)*[\w.-]+\.md|(?:\.\.?\/)*(?:[\w.-]+\/)+[\w.-]+\.ts)\b/g;
  const missing: string[] = [];
  for (const dir of ["src", "test", "scripts"]) {
    for (const rel of readdirSync(join(ROOT, dir), { recursive: true }) as string[]) {
      const file = join(dir, rel);
      if (!rel.endsWith(".ts") || !statSync(join(ROOT, file)).isFile()) continue;
      readFileSync(join(ROOT, file), "utf8")
        .split("\n")
        .forEach((line, i) => {
          const comment = /(?:^|\s)(?:\/\/|\/\*|\*)\s/.exec(line);
          if (!comment) return;
          for (const [, path] of line.slice(comment.index).matchAll(PATH)) {
            if (/(^|\/)(NAME|x)\./.test(path!)) continue;
            if (![ROOT, join(ROOT, "src"), dirname(join(ROOT, file))].some((base) => existsSync(resolve(base, path!))))
              missing.push(`${file}:${i + 1}: ${path}`);
          }
        });
    }
  }
  expect(missing).toEqual([]);
});
