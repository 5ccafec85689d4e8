import { expect, test } from "bun:test";
import { lstatSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tarGz, type TarEntry } from "./tar.ts";

test("tarGz writes the same bytes twice, and tar reads back files, modes, links and folders", () => {
  const big = new Uint8Array(1300).map((_, i) => i % 251);
  const entries: TarEntry[] = [
    { name: "pkg", kind: "dir" },
    { name: "pkg/bin", kind: "file", data: big, mode: 0o755 },
    { name: "pkg/alias", kind: "link", target: "bin" },
    { name: "pkg/docs", kind: "dir" },
    { name: "pkg/docs/LICENSE", kind: "file", data: new TextEncoder().encode("MIT\n"), mode: 0o644 },
  ];
  const a = tarGz(entries, 1_700_000_000);
  expect(Buffer.from(tarGz(entries, 1_700_000_000)).equals(Buffer.from(a))).toBe(true);
  const dir = mkdtempSync(join(tmpdir(), "termd-tar-"));
  try {
    const file = join(dir, "a.tar.gz");
    writeFileSync(file, a);
    const x = Bun.spawnSync(["tar", "-xzf", file, "-C", dir], { stderr: "pipe" });
    expect(x.stderr.toString()).toBe("");
    expect(Buffer.from(readFileSync(join(dir, "pkg/bin"))).equals(Buffer.from(big))).toBe(true);
    expect(statSync(join(dir, "pkg/bin")).mode & 0o777).toBe(0o755);
    expect(statSync(join(dir, "pkg/bin")).mtimeMs).toBe(1_700_000_000_000);
    expect(readlinkSync(join(dir, "pkg/alias"))).toBe("bin");
    expect(lstatSync(join(dir, "pkg/docs")).isDirectory()).toBe(true);
    expect(readFileSync(join(dir, "pkg/docs/LICENSE"), "utf8")).toBe("MIT\n");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
