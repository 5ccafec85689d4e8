// The npm packages as a user gets them: packed (scripts/pack.ts, this machine's target only),
// installed from the tarballs into an empty folder by npm with only Node and npm on PATH (no Bun,
// no checkout), then used: `npx termd`, termd/client from Node, termd/testing from `bun test`,
// the launcher's errors, and a global install, whose install script put the binary in the
// launcher's place. The local install is made without install scripts, so it keeps the launcher.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pack } from "../scripts/pack.ts";
import { hostTarget } from "../src/package/targets.ts";
import { connect } from "../src/client/index.ts";
import { ROOT } from "./harness.ts";
import { alive, eventually } from "./testing/subprocess.ts";
import { typescript5, vitest4 } from "./testing/locked-install.ts";

const target = hostTarget();
const INSTALL_MS = 300_000;

/** A program found on this machine's PATH, or undefined. */
const which = (name: string) => Bun.which(name) ?? undefined;

describe.skipIf(!target || !which("npm"))("the npm packages, installed from their tarballs", () => {
  const dir = mkdtempSync(join(tmpdir(), "termd-package-"));
  const app = join(dir, "app");
  const nodeBin = join(dir, "node-bin");
  const socket = join(dir, "run", "termd.sock");
  const prefix = join(dir, "global");
  /** What npx runs: npm's link to the launcher. */
  const termdBin = join(app, "node_modules", ".bin", "termd");
  let tarballs: string[] = [];
  let globalInstall: { code: number; stdout: string; stderr: string } | undefined;
  /** Only Node and npm, and the shells the session and npm's exec run (no bun, no checkout). */
  const env = {
    PATH: nodeBin,
    HOME: join(dir, "home"),
    npm_config_cache: join(dir, "npm-cache"),
    npm_config_update_notifier: "false",
    npm_config_fund: "false",
    npm_config_audit: "false",
    // The tarballs are here and depend on nothing else: npm needs no registry (the platform
    // packages for other machines are skipped, as an unreachable optional dependency is).
    npm_config_offline: "true",
    TERMD_SOCKET: socket,
    TERMD_STATE_DIR: join(dir, "state"),
  };

  async function run(cmd: string[], opts: { cwd?: string; env?: Record<string, string> } = {}) {
    const p = Bun.spawn(cmd, { cwd: opts.cwd ?? app, env: opts.env ?? env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    return { code, stdout, stderr };
  }

  beforeAll(async () => {
    mkdirSync(nodeBin);
    mkdirSync(app);
    mkdirSync(env.HOME);
    for (const b of ["node", "npm", "npx", "bash", "sh"]) symlinkSync(which(b)!, join(nodeBin, b));
    tarballs = await pack([target!], join(dir, "npm"));
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
    // The global install runs beside the local one; its own test only looks at the result.
    // (npm ≥ 11 asks for a dependency's install scripts to be allowed; older npm runs them.)
    const [local, global] = await Promise.all([
      run(["npm", "install", "--ignore-scripts", ...tarballs]),
      run(["npm", "install", "-g", "--allow-scripts=termd", "--prefix", prefix, ...tarballs]),
    ]);
    expect(local).toMatchObject({ code: 0 });
    globalInstall = global;
  }, INSTALL_MS);

  afterAll(async () => {
    // The daemon npx started, if a failed test left it running.
    try {
      const c = await connect(socket);
      const { pid } = await c.call("system.ping");
      await c.call("system.shutdown", { grace_ms: 500 }).catch(() => {});
      c.close();
      await eventually(() => !alive(pid), 5000);
    } catch {}
    rmSync(dir, { recursive: true, force: true });
  });

  test(
    "npx termd starts a session, lists it and shows its screen; termd/client lists it from Node",
    async () => {
      expect(await run(["npx", "termd", "start", "--name", "x", "--", "bash", "--norc"])).toMatchObject({ code: 0, stdout: "x\n" });
      const ls = await run(["npx", "termd", "ls"]);
      expect(ls.code).toBe(0);
      expect(ls.stdout).toMatch(/^x\s+\S+\s+running\s.*bash --norc$/m);
      expect(await run([termdBin, "wait", "x", "--regex", "\\$ $|# $"])).toMatchObject({ code: 0 });
      const screen = await run(["npx", "termd", "screen", "x"]);
      expect(screen.stdout).toMatch(/^bash-[\d.]+[$#] /);
      writeFileSync(
        join(app, "list.mjs"),
        `import { connect } from "termd/client";\nconst c = await connect();\nconst { sessions } = await c.call("session.list");\nconsole.log(sessions.map((s) => s.name + " " + s.state).join("\\n"));\nc.close();\n`,
      );
      expect(await run(["node", "list.mjs"])).toMatchObject({ code: 0, stdout: "x running\n" });
      expect(await run([termdBin, "daemon", "stop"])).toMatchObject({ code: 0 });
      expect(existsSync(socket)).toBe(false);
    },
    INSTALL_MS,
  );

  test(
    "a bun test file imports termd/testing from the installed package, node --test termd/testing/node, and TypeScript finds the types",
    async () => {
      writeFileSync(
        join(app, "echo.test.ts"),
        `import { expect, test } from "bun:test";\nimport { launch } from "termd/testing";\n\ntest("bash answers", async () => {\n  await using t = await launch(["bash", "--norc"]);\n  await t.type("echo $((6 * 7))-ok\\r");\n  await expect(t).toShowText("42-ok");\n});\n`,
      );
      // Bun from the checkout runs the file; termd/testing and the daemon's binary come from app/node_modules.
      const { TERMD_SOCKET: _, ...noDaemon } = env;
      // (bun test's 5 s default is short for a first daemon start on a loaded machine.)
      const tested = await run([process.execPath, "test", "--timeout", "60000", "echo.test.ts"], {
        env: { ...noDaemon, PATH: `${nodeBin}:/usr/bin:/bin` },
      });
      expect(tested.stderr).toContain("1 pass");
      expect(tested.code).toBe(0);
      // And under Node's own runner, through termd/testing/node: the daemon is the platform package's binary.
      writeFileSync(
        join(app, "echo.node.test.mjs"),
        `import { test, launch, expectTerminal } from "termd/testing/node";\n\ntest("bash answers", async () => {\n  const t = await launch(["bash", "--norc"]);\n  await t.type("echo $((6 * 7))-ok\\r");\n  await expectTerminal(t).toShowText("42-ok");\n});\n`,
      );
      const nodeTested = await run(["node", "--test", "echo.node.test.mjs"], { env: { ...noDaemon, PATH: `${nodeBin}:/usr/bin:/bin` } });
      expect(nodeTested.stdout).toContain("# pass 1");
      expect(nodeTested.code).toBe(0);
      writeFileSync(
        join(app, "typed.ts"),
        [
          `import { connect, RpcError, type SessionInfo } from "termd/client";`,
          `import { launch, type Terminal } from "termd/testing";`,
          `export async function names(): Promise<string[]> {`,
          `  const c = await connect();`,
          `  // The types are real, not any (as they would be if the schemas' valibot types were missing):`,
          `  // rows are a number, and a session's name is no number.`,
          `  // @ts-expect-error`,
          `  await c.call("session.create", { rows: "many" });`,
          `  const { sessions } = await c.call("session.list");`,
          `  // @ts-expect-error`,
          `  const wrong: number = sessions[0]!.name;`,
          `  return sessions.map((s: SessionInfo) => s.name + wrong);`,
          `}`,
          `export const start = (): Promise<Terminal> => launch(["bash"]);`,
          `export const isRpc = (e: unknown) => e instanceof RpcError;`,
          ``,
        ].join("\n"),
      );
      const tsconfig = {
        compilerOptions: {
          module: "nodenext",
          moduleResolution: "nodenext",
          target: "es2022",
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          typeRoots: [join(ROOT, "node_modules", "@types")],
          types: ["bun"],
        },
        files: ["typed.ts"],
      };
      writeFileSync(join(app, "tsconfig.json"), JSON.stringify(tsconfig));
      expect(
        await run([join(ROOT, "node_modules", ".bin", "tsc"), "-p", "tsconfig.json"], {
          env: { ...env, PATH: `${nodeBin}:/usr/bin:/bin` },
        }),
      ).toEqual({ code: 0, stdout: "", stderr: "" });
    },
    INSTALL_MS,
  );

  test(
    "TypeScript (5 and 7) types the matchers termd/testing adds to expect, under bun:test, vitest 3 and vitest 4",
    async () => {
      const source = (runner: string) =>
        [
          `import { expect } from "${runner}";`,
          `import { launch } from "termd/testing";`,
          `export async function check(): Promise<void> {`,
          `  await using t = await launch(["bash"]);`,
          `  await expect(t).toShowText("$", { row: 0, timeout: 100 });`,
          `  await expect(t).not.toShowText(/x/);`,
          `  await expect(t).toHaveCursorAt(0, 2);`,
          `  await expect(t).toHaveTitle("x");`,
          `  await expect(t).toMatchScreenSnapshot("name", { style: true });`,
          `  // @ts-expect-error a row is a number`,
          `  await expect(t).toShowText("$", { row: "0" });`,
          `}`,
          ``,
        ].join("\n");
      // TypeScript 5, what most users have, and the checkout's 7.
      const compilers = [join(await typescript5(), "bin", "tsc"), join(ROOT, "node_modules", ".bin", "tsc")];
      /** `file` compiled as a user's project compiles it (strict, NodeNext, lib checks on), by each compiler: the outputs. */
      const typeCheck = async (file: string, types: string[], skipLibCheck = false) => {
        writeFileSync(
          join(app, `tsconfig.${file}.json`),
          JSON.stringify({
            compilerOptions: {
              module: "nodenext",
              moduleResolution: "nodenext",
              target: "esnext",
              strict: true,
              noEmit: true,
              skipLibCheck,
              typeRoots: [join(ROOT, "node_modules", "@types")],
              types,
            },
            files: [file],
          }),
        );
        const runs = compilers.map((tsc) =>
          run([tsc, "-p", `tsconfig.${file}.json`], { env: { ...env, PATH: `${nodeBin}:/usr/bin:/bin` } }),
        );
        return await Promise.all(runs);
      };
      const clean = compilers.map(() => ({ code: 0, stdout: "", stderr: "" }));
      writeFileSync(join(app, "matchers-bun.ts"), source("bun:test"));
      expect(await typeCheck("matchers-bun.ts", ["bun"])).toEqual(clean);
      writeFileSync(join(app, "matchers-vitest.ts"), source("vitest"));
      // vitest where the app would have it (each major's own folder, linked), with no Bun types about.
      const link = join(app, "node_modules", "vitest");
      // (vitest 3's declarations clash with the @types/chai it brings, 5.2: their own error, which only skipLibCheck hides.)
      for (const [vitest, skipLibCheck] of [
        [join(ROOT, "node_modules", "vitest"), true],
        [await vitest4(), false],
      ] as const) {
        symlinkSync(vitest, link);
        try {
          expect(await typeCheck("matchers-vitest.ts", ["node"], skipLibCheck)).toEqual(clean);
        } finally {
          rmSync(link);
        }
      }
    },
    INSTALL_MS,
  );

  test(
    "vitest 4 runs a test file that imports termd/testing from the installed package",
    async () => {
      // vitest where the app would have it: its node_modules (vitest 4's own folder, linked).
      symlinkSync(await vitest4(), join(app, "node_modules", "vitest"));
      writeFileSync(
        join(app, "echo.vitest.test.ts"),
        `import { expect, test } from "vitest";\nimport { launch } from "termd/testing";\n\ntest("bash answers", async () => {\n  await using t = await launch(["bash", "--norc"]);\n  await t.type("echo $((6 * 7))-ok\\r");\n  await expect(t).toShowText("42-ok");\n});\n`,
      );
      const { TERMD_SOCKET: _, ...noDaemon } = env;
      const r = await run(["node", join(app, "node_modules", "vitest", "vitest.mjs"), "run", "echo.vitest.test.ts"], {
        env: { ...noDaemon, PATH: `${nodeBin}:/usr/bin:/bin`, NO_COLOR: "1" },
      });
      expect(r.stdout).toContain("Tests  1 passed (1)");
      expect(r.code).toBe(0);
    },
    INSTALL_MS,
  );

  test(
    "the launcher says what is wrong, without a stack trace: binary not executable or missing, platform package missing, platform unsupported; the install script then keeps the launcher",
    async () => {
      const pkg = join(app, "node_modules", "@termd", target!.name);
      const bin = join(pkg, "bin", "termd");
      const launcher = join(app, "node_modules", "termd", "bin", "termd.js");
      const fails = async (cmd: string[], ...says: string[]) => {
        const r = await run(cmd);
        expect(r.code).toBe(1);
        for (const s of says) expect(r.stderr).toContain(s);
        expect(r.stderr).not.toMatch(/^\s+at /m);
      };
      const isLauncher = () => readFileSync(launcher, "utf8").startsWith("#!/usr/bin/env node");
      expect(isLauncher()).toBe(true);
      chmodSync(bin, 0o644);
      await fails([termdBin, "ls"], `${bin} is not executable`, "chmod +x");
      // The install script, meeting a binary it cannot run, leaves the launcher and the install alone.
      const install = await run(["node", join(app, "node_modules", "termd", "install.js")]);
      expect(install).toMatchObject({ code: 0, stderr: expect.stringContaining("the termd command stays the Node launcher") });
      expect(isLauncher()).toBe(true);
      chmodSync(bin, 0o755);
      renameSync(bin, `${bin}.away`);
      await fails([termdBin, "ls"], `${bin} is missing`, `npm install @termd/${target!.name}@`);
      renameSync(`${bin}.away`, bin);
      renameSync(pkg, `${pkg}.away`);
      await fails(
        [termdBin, "ls"],
        `@termd/${target!.name}`,
        `this platform (${target!.name}), is not installed`,
        "--omit=optional",
        "npm install",
      );
      renameSync(`${pkg}.away`, pkg);
      // No other platform runs here: Node is told it runs on Windows.
      const windows = `data:text/javascript,Object.defineProperty(process, "platform", { value: "win32" })`;
      await fails(["node", "--import", windows, launcher, "ls"], "no termd build for this platform (win32-", "linux-x64", "from source");
      expect(await run(["npx", "termd", "--version"])).toMatchObject({
        code: 0,
        stdout: expect.stringContaining(`, ${target!.name}, bun `),
      });
    },
    INSTALL_MS,
  );

  test(
    "the launcher passes a supervisor's SIGTERM on: a foreground daemon under it stops cleanly",
    async () => {
      const own = join(dir, "fg", "termd.sock");
      const p = Bun.spawn([termdBin, "daemon", "--socket", own, "--state-dir", join(dir, "fg-state")], {
        cwd: app,
        env,
        stdin: "ignore",
        stdout: "ignore",
        stderr: "pipe",
      });
      const reader = p.stderr.getReader();
      let log = "";
      while (!log.includes("listening on")) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`the daemon did not start: ${log}`);
        log += new TextDecoder().decode(value);
      }
      // The rest of the daemon's log is kept: a stop that goes wrong says why in the failure.
      const rest = (async () => {
        for (let r = await reader.read(); !r.done; r = await reader.read()) log += new TextDecoder().decode(r.value);
      })();
      const c = await connect(own);
      const { pid } = await c.call("system.ping");
      expect(pid).not.toBe(p.pid); // the binary, not the launcher
      c.close();
      p.kill("SIGTERM");
      const code = await p.exited;
      await rest;
      expect({ code, log }).toMatchObject({ code: 0 });
      expect(await eventually(() => !alive(pid), 5000)).toBe(true);
    },
    INSTALL_MS,
  );

  test(
    "npm install -g puts termd on PATH, as the platform's binary itself: no Node runs",
    async () => {
      expect(globalInstall).toMatchObject({ code: 0 });
      const lib = join(prefix, "lib", "node_modules");
      // A hard link of the platform package's binary, in the launcher's place.
      expect(statSync(join(lib, "termd", "bin", "termd.js")).ino).toBe(statSync(join(lib, "@termd", target!.name, "bin", "termd")).ino);
      const r = await run(["termd", "--version", "--json"], { env: { ...env, PATH: join(prefix, "bin") } });
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ target: target!.name });
    },
    INSTALL_MS,
  );
});
