// A write that failed for want of space (a full disk, a quota, a file-size limit) or of a place
// that takes writes (a read-only file system, a folder without write permission), told in words
// that name where: which path's disk is full or read-only is what a reader needs to mend it.

/** The codes of "no room" and "no writing here": fs errors, and SQLite's own. */
const NO_ROOM: Record<string, string> = {
  ENOSPC: "no space left on the disk holding",
  EDQUOT: "the disk quota is used up for",
  EFBIG: "the file-size limit stops",
  SQLITE_FULL: "no space left on the disk holding",
  EROFS: "a read-only file system at",
  SQLITE_READONLY: "a read-only file system at",
  EACCES: "no permission to write in",
};

/** The error's message, naming `path`; for want of space, the disk that holds it and the code. */
export function writeError(err: unknown, path: string): string {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === "string" && code in NO_ROOM) return `${NO_ROOM[code]} ${path} (${code})`;
  const message = err instanceof Error ? err.message : String(err);
  return message.includes(path) ? message : `${path}: ${message}`;
}
