// A write that failed for want of space (a full disk, a quota, a file-size limit), told in words
// that name where: which path's disk is full is what a reader needs to free it.

/** The codes of "no room": fs errors, and SQLite's own. */
const NO_ROOM: Record<string, string> = {
  ENOSPC: "no space left on the disk holding",
  EDQUOT: "the disk quota is used up for",
  EFBIG: "the file-size limit stops",
  SQLITE_FULL: "no space left on the disk holding",
};

/** The error's message, naming `path`; for want of space, the disk that holds it and the code. */
export function writeError(err: unknown, path: string): string {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === "string" && code in NO_ROOM) return `${NO_ROOM[code]} ${path} (${code})`;
  const message = err instanceof Error ? err.message : String(err);
  return message.includes(path) ? message : `${path}: ${message}`;
}
