// The layers' allowed imports, written down and checked: a static scan of every import in src/
// (tests beside the code are left out: they may reach whatever they test with). An import that
// breaks a rule fails here, naming the file, the import and the rule.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const SRC = join(import.meta.dir, "..", "src");

/**
 * What each folder of src/ may import besides itself (DESIGN.md's layers: imports point one way).
 * Anything outside src/ (packages, node:, bun:) is free; package.json and assets/ are data.
 */
const ALLOWED: Record<string, string[]> = {
  // The byte-level parser: pure TypeScript, nothing else.
  vt: [],
  // The shared vocabulary (schemas, errors, wire shapes, paths): every layer may import it; it imports none.
  protocol: [],
  // The one module behind which platform specifics (process tables, /proc) sit.
  platform: [],
  terminal: ["vt", "protocol"],
  // Screenshots and screen text (SVG, PNG, SGR, numbered rows) from protocol's shapes.
  render: ["protocol"],
  session: ["terminal", "vt", "protocol", "platform"],
  // Dialects reach the daemon only through the NativeCaller the daemon gives them.
  dialects: ["protocol", "render", "session"],
  // The daemon composes sessions and the dialects it is given; it knows no transport but its sockets.
  daemon: ["protocol", "session", "terminal", "platform", "render", "dialects"],
  // The HTTP transport reaches a daemon only through the WebHost it declares (web/host.ts), which
  // server/ makes from one: no daemon module.
  web: ["protocol", "render", "session", "web/page"],
  // The attach page runs in a browser: only pure shared modules.
  "web/page": ["protocol"],
  client: ["protocol"],
  testing: ["client", "protocol", "render", "package"],
  mcp: ["client", "protocol", "render"],
  package: ["protocol"],
  // The composition root of a process that hosts a daemon: the one place the command line meets
  // the daemon, its dialects and the HTTP transport (server/web-host.ts joins the last two).
  server: ["daemon", "dialects", "web", "protocol"],
  // The command line reaches a daemon only through client/; it hosts one only through server/.
  cli: ["client", "protocol", "platform", "mcp", "server"],
};

/** Single files allowed more than their folder, each with its reason. */
const EXCEPTIONS: Record<string, { folders: string[]; why: string }> = {
  "cli/commands/send.ts": { folders: ["terminal"], why: "key tokens are checked with the pure key encoder before anything is typed" },
  "cli/commands/attach.ts": { folders: ["terminal"], why: "the detach key is a key token, encoded by the pure key encoder" },
  "cli/commands/logs.ts": { folders: ["terminal"], why: "plain text of the log through the pure plain-text module" },
  "mcp/tools/run_command.ts": { folders: ["terminal"], why: "plain text through the pure plain-text module" },
  "mcp/tools/read_output.ts": { folders: ["terminal"], why: "plain text through the pure plain-text module" },
};

const IMPORT =
  /(?:^|[\s;])(?:import|export)\b[^"'`;]*?\bfrom\s*["']([^"']+)["']|\bimport\s*\(\s*["']([^"']+)["']\s*\)|^import\s+["']([^"']+)["']/gm;

/** The folder rules apply to: the first one under src/, web/page on its own. */
function folderOf(rel: string): string {
  return rel.startsWith("web/page/") ? "web/page" : rel.split("/")[0]!;
}

function sources(): string[] {
  return [...new Bun.Glob("**/*.ts").scanSync({ cwd: SRC })].filter((f) => !f.endsWith(".test.ts") && !f.endsWith(".d.ts")).sort();
}

/** Each relative import of `file` into another folder of src/ that its rules do not allow. */
function breaches(file: string, text = readFileSync(join(SRC, file), "utf8")): string[] {
  const from = folderOf(file);
  const allowed = new Set([from, ...(ALLOWED[from] ?? []), ...(EXCEPTIONS[file]?.folders ?? [])]);
  const out: string[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[1] ?? m[2] ?? m[3]!;
    if (!spec.startsWith(".")) continue;
    const target = relative(SRC, resolve(dirname(join(SRC, file)), spec));
    if (target.startsWith("..")) continue;
    const to = folderOf(target);
    if (!allowed.has(to))
      out.push(`${file} imports ${spec}: ${from}/ may import ${[...allowed].filter((f) => f !== from).join(", ") || "nothing of src/"}`);
  }
  return out;
}

test("every folder of src/ has its rule", () => {
  const folders = new Set(sources().map(folderOf));
  expect([...folders].filter((f) => !(f in ALLOWED))).toEqual([]);
});

test("every import in src/ follows its folder's rule", () => {
  expect(sources().flatMap((f) => breaches(f))).toEqual([]);
});

test("the scan sees imports of every form, and a breach is named", () => {
  const text =
    'import { a } from "../daemon/x.ts";\nexport type { B } from "../web/y.ts";\nconst c = await import("../session/z.ts");\nimport "../dialects/w.ts";\n';
  expect([...text.matchAll(IMPORT)].map((m) => m[1] ?? m[2] ?? m[3])).toEqual([
    "../daemon/x.ts",
    "../web/y.ts",
    "../session/z.ts",
    "../dialects/w.ts",
  ]);
});

test("the edges stay apart: web reaches no daemon module, the daemon no web one", () => {
  expect(breaches("web/server.ts", 'import { run } from "../daemon/dispatch.ts";\n')).toEqual([
    "web/server.ts imports ../daemon/dispatch.ts: web/ may import protocol, render, session, web/page",
  ]);
  expect(breaches("daemon/main.ts", 'import { serveHttp } from "../web/server.ts";\n')).toHaveLength(1);
  expect(
    breaches("server/web-host.ts", 'import { run } from "../daemon/dispatch.ts";\nimport type { WebHost } from "../web/host.ts";\n'),
  ).toEqual([]);
});
