// The layers' allowed imports, written down and checked: a static scan of every import in src/
// (tests beside the code are left out: they may reach whatever they test with). An import that
// breaks a rule fails here, naming the file, the import and the rule; so does an import cycle, and
// a layer with a tsconfig.json of its own that does not compile on its own.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const SRC = join(import.meta.dir, "..", "src");

/**
 * What each folder of src/ may import besides itself (docs/architecture.md's layers: imports point one way).
 * Anything outside src/ (packages, node:, bun:) is free; package.json and assets/ are data.
 */
const ALLOWED: Record<string, string[]> = {
  // The byte-level parser: pure TypeScript, nothing else.
  vt: [],
  // The shared vocabulary (schemas, errors, wire shapes, paths): every layer may import it; it imports none.
  protocol: [],
  // The one module behind which platform specifics (process tables, /proc) sit.
  platform: [],
  // platform/ for how a worker thread is started (worker-thread.ts) and which of a pool's gets work.
  terminal: ["vt", "protocol", "platform"],
  // Screenshots and screen text (SVG, PNG, SGR, numbered rows) from protocol's shapes; platform/
  // for the PNG worker's start.
  render: ["protocol", "platform"],
  // A program on a PTY and the thread that reads it (the pty worker, its pool, the log it appends to):
  // below session/, which composes it with the output's storage, the screen view and the waits.
  pty: ["terminal", "protocol", "platform"],
  session: ["pty", "terminal", "vt", "protocol", "platform"],
  // Dialects reach the daemon only through the NativeCaller the daemon gives them.
  dialects: ["protocol", "render", "session"],
  // The daemon composes sessions and the dialects it is given; it knows no transport but its sockets.
  daemon: ["protocol", "session", "pty", "terminal", "platform", "render", "dialects"],
  // The HTTP transport reaches a daemon only through the WebHost it declares (web/web-host.ts), which
  // server/ makes from one: no daemon module.
  web: ["protocol", "render", "session", "web/page"],
  // The attach page runs in a browser: only pure shared modules.
  "web/page": ["protocol"],
  client: ["protocol"],
  testing: ["client", "protocol", "render", "package"],
  mcp: ["client", "protocol", "render"],
  package: ["protocol"],
  // The composition root of a process that hosts a daemon: the one place the command line meets
  // the daemon, its dialects and the HTTP transport (server/daemon-web-host.ts joins the last two).
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

/**
 * The layers the compiler checks as well, each with a tsconfig.json of its own: what it may use
 * (vt/ no Bun, node or DOM; protocol/ and client/ no Bun: they run under Node too; web/page the
 * browser's) and, composite, no import of a file it does not list. `npm run typecheck` runs them.
 */
const LAYER_TSCONFIGS = ["vt", "protocol", "platform", "client", "web/page"];

test("every layer with a tsconfig.json of its own is checked, and compiles on its own", () => {
  const found = [...new Bun.Glob("**/tsconfig.json").scanSync({ cwd: SRC })].map((f) => dirname(f)).sort();
  expect(found).toEqual([...LAYER_TSCONFIGS].sort());
  const typecheck = JSON.parse(readFileSync(join(SRC, "..", "package.json"), "utf8")).scripts.typecheck as string;
  expect(LAYER_TSCONFIGS.filter((layer) => !typecheck.includes(`-p src/${layer}/tsconfig.json`))).toEqual([]);
  for (const layer of LAYER_TSCONFIGS) {
    const result = Bun.spawnSync([process.execPath, "x", "tsc", "--noEmit", "-p", join(SRC, layer, "tsconfig.json")], {
      cwd: join(SRC, ".."),
      env: { ...process.env, BUN_BE_BUN: "1" },
    });
    expect(`${layer}: ${result.stdout.toString()}${result.stderr.toString()}`).toBe(`${layer}: `);
    expect(result.exitCode).toBe(0);
  }
});

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

test("the pty layer stands below session/: a pty module importing a session one is a breach", () => {
  expect(breaches("pty/child.ts", 'import type { Session } from "../session/session.ts";\n')).toEqual([
    "pty/child.ts imports ../session/session.ts: pty/ may import terminal, protocol, platform",
  ]);
  expect(breaches("session/session.ts", 'import { Child } from "../pty/child.ts";\n')).toEqual([]);
});

test("the edges stay apart: web reaches no daemon module, the daemon no web one", () => {
  expect(breaches("web/http-server.ts", 'import { run } from "../daemon/dispatch.ts";\n')).toEqual([
    "web/http-server.ts imports ../daemon/dispatch.ts: web/ may import protocol, render, session, web/page",
  ]);
  expect(breaches("daemon/main.ts", 'import { serveHttp } from "../web/http-server.ts";\n')).toHaveLength(1);
  expect(
    breaches(
      "server/daemon-web-host.ts",
      'import { run } from "../daemon/dispatch.ts";\nimport type { WebHost } from "../web/web-host.ts";\n',
    ),
  ).toEqual([]);
});

/** Each import between files of src/. */
function imports(): { from: string; to: string }[] {
  const files = sources();
  const known = new Set(files);
  return files.flatMap((from) =>
    [...readFileSync(join(SRC, from), "utf8").matchAll(IMPORT)].flatMap((m) => {
      const spec = m[1] ?? m[2] ?? m[3]!;
      const to = relative(SRC, resolve(dirname(join(SRC, from)), spec));
      return spec.startsWith(".") && known.has(to) ? [{ from, to }] : [];
    }),
  );
}

/**
 * Each file of src/ with the files of src/ it imports. Type-only imports count as much as any: a
 * cycle of types is still modules that cannot be read (or moved) one without the other.
 */
function importGraph(): Map<string, string[]> {
  const graph = new Map(sources().map((f) => [f, [] as string[]]));
  for (const { from, to } of imports()) graph.get(from)!.push(to);
  return graph;
}

/** Every import cycle of `graph`, each as the path that closes it ("a -> b -> a"), at most one per file it starts from. */
function cycles(graph: Map<string, string[]>): string[] {
  const done = new Set<string>();
  const out: string[] = [];
  const path: string[] = [];
  const onPath = new Set<string>();
  const visit = (file: string): void => {
    path.push(file);
    onPath.add(file);
    for (const to of graph.get(file) ?? []) {
      if (onPath.has(to)) out.push([...path.slice(path.indexOf(to)), to].join(" -> "));
      else if (!done.has(to)) visit(to);
    }
    path.pop();
    onPath.delete(file);
    done.add(file);
  };
  for (const file of graph.keys()) if (!done.has(file)) visit(file);
  return out;
}

test("src/session and src/pty have no import cycle: what a session is made of does not import it back", () => {
  const graph = importGraph();
  const session = new Map([...graph].filter(([f]) => f.startsWith("session/") || f.startsWith("pty/")));
  expect(cycles(session)).toEqual([]);
});

test("no import cycle in src/, type-only imports included", () => {
  expect(cycles(importGraph())).toEqual([]);
});

test("the cycle check finds a cycle of types", () => {
  const graph = new Map([
    ["session/a.ts", ["session/b.ts"]],
    ["session/b.ts", ["session/c.ts"]],
    ["session/c.ts", ["session/a.ts"]],
    ["session/d.ts", ["session/a.ts"]],
  ]);
  expect(cycles(graph)).toEqual(["session/a.ts -> session/b.ts -> session/c.ts -> session/a.ts"]);
});

test("a session is reached as a Session only by its store, its record and the daemon; its parts and web/ take stream.ts's interfaces", () => {
  const owners = new Set(["session/store.ts", "session/record.ts"]);
  const importers = imports().filter((i) => i.to === "session/session.ts" && !owners.has(i.from) && !i.from.startsWith("daemon/"));
  expect(importers.map((i) => i.from)).toEqual([]);
});

/**
 * The files of src/ that `file` loads as it is evaluated: its imports that are not type-only (an
 * `import type`, or braces of `type` names only, is erased); `import()` and `require()` load later.
 */
function loadedWith(file: string, text = readFileSync(join(SRC, file), "utf8")): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/^(?:import|export)\s+([^"'`;]*?)\s*from\s*["'](\.[^"']+)["']|^import\s+["'](\.[^"']+)["']/gm)) {
    const names = m[1] ?? "";
    const typeOnly = /^type\s/.test(names) || /^\{\s*(?:type\s+[\w$]+(?:\s+as\s+[\w$]+)?\s*,?\s*)+\}$/.test(names);
    if (!typeOnly) out.push(relative(SRC, resolve(dirname(join(SRC, file)), m[2] ?? m[3]!)));
  }
  return out;
}

/** Every file of src/ loaded with `entry`, by its imports' imports. */
function loadedAtStart(entry: string): Set<string> {
  const seen = new Set<string>();
  const next = [entry];
  while (next.length > 0) {
    const file = next.pop()!;
    if (seen.has(file) || !file.endsWith(".ts")) continue;
    seen.add(file);
    next.push(...loadedWith(file));
  }
  return seen;
}

test("a daemon loads no session machinery at start: the store, the pools, the method table and subscriptions come with their first use", () => {
  const machinery = [
    "daemon/session-layer.ts",
    "session/store.ts",
    "session/session.ts",
    "session/pipeline.ts",
    "pty/pty-pool.ts",
    "terminal/screen-pool.ts",
    "daemon/commands/index.ts",
    "daemon/subscription.ts",
  ];
  const start = loadedAtStart("server/daemon-host.ts");
  expect(start.has("daemon/daemon.ts")).toBe(true);
  expect(machinery.filter((f) => start.has(f))).toEqual([]);
});

test("what a file loads as it is evaluated leaves out type-only imports, import() and require()", () => {
  const text = [
    'import type { A } from "./a.ts";',
    'import { type B, type C as D } from "./b.ts";',
    'import { e, type F } from "./e.ts";',
    'export { g } from "./g.ts";',
    'import "./h.ts";',
    'const i = () => import("./i.ts");',
    'const j = require("./j.ts");',
  ].join("\n");
  expect(loadedWith("daemon/x.ts", text)).toEqual(["daemon/e.ts", "daemon/g.ts", "daemon/h.ts"]);
});
