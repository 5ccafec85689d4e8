// Running a linux-arm64 binary on an x64 machine with qemu's user-mode emulator (Debian's
// qemu-user-static), its glibc loader and libraries from Debian's libc6-arm64-cross. No binfmt
// registration is needed: qemu is run explicitly. Programs the emulated binary starts (a
// session's bash) are the host's own and run natively: execve is a system call qemu passes on.
import { existsSync } from "node:fs";

export const ARM64_SYSROOT = "/usr/aarch64-linux-gnu";

/** The command that runs an arm64 executable here, or why there is none. */
export function qemuArm64(): { run: string[] } | { missing: string } {
  const qemu = Bun.which("qemu-aarch64-static") ?? Bun.which("qemu-aarch64");
  if (!qemu) return { missing: "no qemu-aarch64-static (Debian: apt-get install qemu-user-static)" };
  if (!existsSync(`${ARM64_SYSROOT}/lib/ld-linux-aarch64.so.1`))
    return { missing: `no arm64 glibc in ${ARM64_SYSROOT} (Debian: apt-get install libc6-arm64-cross)` };
  return { run: [qemu, "-L", ARM64_SYSROOT] };
}
