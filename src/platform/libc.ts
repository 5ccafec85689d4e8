// libc's functions Bun has no binding for (flock, waitpid), through bun:ffi: the library's name
// differs between glibc, musl (its loader is its libc) and macOS.

/** The names to try dlopen with, most likely first. */
export function libcCandidates(): string[] {
  if (process.platform === "darwin") return ["libc.dylib", "/usr/lib/libSystem.B.dylib"];
  const arch = process.arch === "arm64" ? "aarch64" : "x86_64";
  return ["libc.so.6", `/lib/ld-musl-${arch}.so.1`, `libc.musl-${arch}.so.1`, "libc.so"];
}
