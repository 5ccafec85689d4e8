// The platforms termd is built for: one list that the release, the npm packs, the launcher and
// termd/testing (which package holds this machine's binary) and the platform tests all read.
// Runs under Node as well as Bun: no Bun APIs.
import { existsSync, readFileSync } from "node:fs";

export interface Target {
  /** termd's name for it, in archive and package names: linux-x64-musl. */
  name: string;
  /** Node's process.platform and the npm `os` field. */
  os: "linux" | "darwin";
  /** Node's process.arch and the npm `cpu` field. */
  cpu: "x64" | "arm64";
  /** The npm `libc` field (Linux only). */
  libc?: "glibc" | "musl";
  /** `bun build --compile --target=…` */
  bun: string;
}

const target = (os: Target["os"], cpu: Target["cpu"], libc?: Target["libc"]): Target => {
  const name = `${os}-${cpu}${libc === "musl" ? "-musl" : ""}`;
  return { name, os, cpu, libc, bun: `bun-${name}` };
};

export const TARGETS: readonly Target[] = [
  target("linux", "x64", "glibc"),
  target("linux", "x64", "musl"),
  target("linux", "arm64", "glibc"),
  target("linux", "arm64", "musl"),
  target("darwin", "x64"),
  target("darwin", "arm64"),
];

export function targetNamed(name: string): Target {
  const t = TARGETS.find((t) => t.name === name);
  if (!t) throw new Error(`no target ${JSON.stringify(name)}; the targets are ${TARGETS.map((t) => t.name).join(", ")}`);
  return t;
}

/** The npm package holding a target's binary. */
export const packageName = (t: Target): string => `@termd/${t.name}`;

/**
 * This machine's target name, whether or not termd is built for it (linux-x64-musl, win32-x64).
 * libc as detect-libc decides it: Node's and Bun's report names the glibc they run on; else
 * `ldd` says whose it is (Alpine's is musl's loader; Debian's stays glibc's with the musl package
 * installed beside it); else the loaders on disk.
 */
export function hostTargetName(platform: string = process.platform, arch: string = process.arch): string {
  if (platform !== "linux") return `${platform}-${arch}`;
  return `linux-${arch}${hostLibc() === "musl" ? "-musl" : ""}`;
}

function hostLibc(): "glibc" | "musl" {
  const header = (process.report?.getReport?.() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header;
  if (header?.glibcVersionRuntime) return "glibc";
  try {
    const ldd = readFileSync("/usr/bin/ldd", "latin1");
    if (ldd.includes("musl")) return "musl";
    if (/GNU C Library|GLIBC/.test(ldd)) return "glibc";
  } catch {}
  return ["/lib/ld-musl-x86_64.so.1", "/lib/ld-musl-aarch64.so.1"].some((f) => existsSync(f)) ? "musl" : "glibc";
}

/** This machine's target, or undefined where termd is not built for it. */
export const hostTarget = (): Target | undefined => TARGETS.find((t) => t.name === hostTargetName());
