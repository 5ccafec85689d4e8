// install.sh against a release folder made here (the release's own archive writer around the
// built dist/termd), served as file:// and over HTTP, run by dash (Debian's sh) and bash: the
// happy path, and every refusal leaving nothing installed.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { archiveName, finishRelease, writeArchive } from "../scripts/release.ts";
import { hostTarget } from "../src/package/targets.ts";
import { DIST_BIN, ROOT } from "./harness.ts";

const target = hostTarget();
const INSTALL_SH = join(ROOT, "install.sh");
const shells = ["dash", "bash"].filter((s) => Bun.which(s));
/** The README's install command (URL for the release's folder). */
const README_COMMAND = /`(curl [^`]*URL\/install\.sh[^`]*)`/.exec(readFileSync(join(ROOT, "README.md"), "utf8"))![1]!;

describe.skipIf(!target)("install.sh", () => {
  const dir = mkdtempSync(join(tmpdir(), "termd-install-"));
  const release = join(dir, "release");
  let sums = "";
  let server: ReturnType<typeof Bun.serve> | undefined;
  let n = 0;

  beforeAll(() => {
    if (!existsSync(DIST_BIN[0]!)) throw new Error("dist/termd is missing: run `bun run build` first (npm test does)");
    mkdirSync(release);
    sums = writeArchive(target!, DIST_BIN[0]!, release, 0, 1) + "\n";
    writeFileSync(join(release, "SHA256SUMS"), sums);
    // Serves a release folder's files (as a download site would); anything else is a 404.
    server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch(req) {
        const [folder, file] = new URL(req.url).pathname.split("/").filter(Boolean);
        const path = join(dir, folder ?? "", file ?? "");
        return folder && file && existsSync(path) ? new Response(Bun.file(path)) : new Response("not found", { status: 404 });
      },
    });
  }, 120_000);

  afterAll(() => {
    server?.stop(true);
    rmSync(dir, { recursive: true, force: true });
  });

  /** A release folder like the good one, with `change` applied to its files. */
  function variant(change: (folder: string) => void): string {
    const folder = join(dir, `variant-${++n}`);
    cpSync(release, folder, { recursive: true });
    change(folder);
    return folder;
  }

  async function install(opts: { shell?: string; url: string; prefix?: string; path?: string }) {
    const prefix = opts.prefix ?? join(dir, `prefix-${++n}`, "bin");
    const p = Bun.spawn([opts.shell ?? "dash", INSTALL_SH, "--prefix", prefix], {
      env: { HOME: join(dir, "home"), PATH: opts.path ?? "/usr/bin:/bin", TERMD_RELEASE_URL: opts.url },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    return { code, stdout, stderr, prefix, installed: existsSync(prefix) ? readdirSync(prefix).sort() : [] };
  }

  /** The installer stopped with `says` and installed nothing. */
  async function refuses(url: string, says: string, path?: string) {
    const r = await install({ url, path });
    expect(r.stderr).toContain(says);
    expect(r.stderr).toContain("nothing was installed");
    expect(r).toMatchObject({ code: 1, installed: [] });
  }

  test("the README's command installs from a release folder as release.ts finishes it (install.sh in it, and in SHA256SUMS), and fails when the download does", async () => {
    const folder = variant((f) => finishRelease(f, [sums.trim()]));
    const check = Bun.spawnSync(["sha256sum", "-c", "SHA256SUMS"], { cwd: folder, stdout: "pipe", stderr: "pipe" });
    expect(check.stdout.toString()).toContain("install.sh: OK");
    expect(check.exitCode).toBe(0);
    const readme = async (url: string) => {
      const home = join(dir, `home-${++n}`);
      mkdirSync(home);
      const p = Bun.spawn(["sh", "-c", README_COMMAND.replace(/\bURL\b/g, url)], {
        cwd: home,
        env: { HOME: home, PATH: "/usr/bin:/bin" },
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
      });
      const [stderr, code] = await Promise.all([new Response(p.stderr).text(), p.exited]);
      const bin = join(home, ".local", "bin");
      return { code, stderr, installed: existsSync(bin) ? readdirSync(bin).sort() : [] };
    };
    const base = `http://127.0.0.1:${server!.port}`;
    expect(await readme(`${base}/${folder.slice(dir.length + 1)}`)).toMatchObject({
      code: 0,
      installed: ["cp-console-server", "interminai", "termd"],
    });
    // A folder without install.sh (as releases were): the download's 404 is the command's failure.
    const missing = await readme(`${base}/release`);
    expect(missing.stderr).toContain("404");
    expect(missing.code).not.toBe(0);
    expect(missing.installed).toEqual([]);
  }, 60_000);

  for (const shell of shells) {
    test(`${shell}: installs from file:// into --prefix, links and all, and says the folder is not on PATH`, async () => {
      const r = await install({ shell, url: `file://${release}` });
      expect(r.stderr).toContain(`installed termd `);
      expect(r.stderr).toContain(`${r.prefix} is not on your PATH`);
      expect(r.code).toBe(0);
      expect(r.installed).toEqual(["cp-console-server", "interminai", "termd"]);
      expect(readlinkSync(join(r.prefix, "interminai"))).toBe("termd");
      const v = Bun.spawnSync([join(r.prefix, "termd"), "--version", "--json"]);
      expect(JSON.parse(v.stdout.toString())).toMatchObject({ target: target!.name });
    }, 60_000);
  }

  test("over HTTP, into a folder on PATH, and says so", async () => {
    const prefix = join(dir, "on-path");
    const r = await install({ url: `http://127.0.0.1:${server!.port}/release`, prefix, path: `${prefix}:/usr/bin:/bin` });
    expect(r.stderr).toContain(`${prefix} is on your PATH`);
    expect(r).toMatchObject({ code: 0, installed: ["cp-console-server", "interminai", "termd"] });
  }, 60_000);

  test("a checksum mismatch is refused", async () => {
    const folder = variant((f) => writeFileSync(join(f, "SHA256SUMS"), sums.replace(/^[0-9a-f]{8}/, "00000000")));
    await refuses(`file://${folder}`, "does not match its SHA256SUMS entry");
  });

  test("a truncated archive is refused by its checksum; a corrupt one whose SUMS agree, by tar", async () => {
    const cut = (f: string) => {
      const a = join(f, archiveName(target!));
      writeFileSync(a, readFileSync(a).subarray(0, 4096));
    };
    await refuses(`file://${variant(cut)}`, "does not match its SHA256SUMS entry");
    const corrupt = variant((f) => {
      const a = join(f, archiveName(target!));
      const bytes = readFileSync(a);
      bytes.fill(0x55, 2000, 3000);
      writeFileSync(a, bytes);
      writeFileSync(join(f, "SHA256SUMS"), `${new Bun.CryptoHasher("sha256").update(bytes).digest("hex")}  ${archiveName(target!)}\n`);
    });
    await refuses(`file://${corrupt}`, "is damaged: tar could not unpack it");
  });

  test("SHA256SUMS without this machine's archive is refused", async () => {
    // Only another target's line (linux-x64-musl must not pass for linux-x64).
    const other = variant((f) => writeFileSync(join(f, "SHA256SUMS"), `${"a".repeat(64)}  termd-0.1.0-${target!.name}-other.tar.gz\n`));
    await refuses(`file://${other}`, `lists no archive for this machine (${target!.name})`);
  });

  test("an unknown platform is refused", async () => {
    const fake = join(dir, "fake-bin");
    mkdirSync(fake, { recursive: true });
    writeFileSync(join(fake, "uname"), `#!/bin/sh\ncase "$1" in -s) echo FreeBSD ;; -m) echo riscv64 ;; esac\n`);
    chmodSync(join(fake, "uname"), 0o755);
    await refuses(`file://${release}`, "no build for this system (FreeBSD on riscv64)", `${fake}:/usr/bin:/bin`);
  });

  // The musl loader is here when Debian's musl package is (the platform tests install it); a
  // getconf that knows no glibc is then what Alpine's looks like.
  test.skipIf(target?.os !== "linux" || !existsSync(`/lib/ld-musl-${process.arch === "x64" ? "x86_64" : "aarch64"}.so.1`))(
    "a musl system asks for the -musl archive, which the glibc one does not stand in for",
    async () => {
      const fake = join(dir, "musl-bin");
      mkdirSync(fake, { recursive: true });
      writeFileSync(join(fake, "getconf"), "#!/bin/sh\nexit 1\n");
      chmodSync(join(fake, "getconf"), 0o755);
      await refuses(`file://${release}`, `lists no archive for this machine (${target!.name}-musl)`, `${fake}:/usr/bin:/bin`);
    },
  );

  test("failed downloads are refused: a missing archive, a missing SHA256SUMS, a server nobody runs", async () => {
    const noArchive = variant((f) => rmSync(join(f, archiveName(target!))));
    const name = noArchive.split("/").pop();
    await refuses(
      `http://127.0.0.1:${server!.port}/${name}`,
      `could not download http://127.0.0.1:${server!.port}/${name}/${archiveName(target!)}`,
    );
    await refuses(`http://127.0.0.1:${server!.port}/nowhere`, "could not download");
    await refuses(`file://${dir}/nowhere`, `could not download file://${dir}/nowhere/SHA256SUMS`);
    // A port that was just free: nothing listens there.
    const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const port = probe.port;
    probe.stop(true);
    await refuses(`http://127.0.0.1:${port}/release`, "could not download");
  });
});
