// A .tar.gz written byte for byte the same from the same files: ustar headers with fixed owner
// (0/0, no names), one given mtime, entries in the order given, and gzip with no name or time.
// GNU tar can do this with half a dozen flags; macOS's bsdtar cannot, so the release writes its own.

export type TarEntry =
  | { name: string; kind: "dir" }
  | { name: string; kind: "file"; data: Uint8Array; mode: number }
  | { name: string; kind: "link"; target: string };

const BLOCK = 512;
const enc = new TextEncoder();

function header(e: TarEntry, mtime: number): Uint8Array {
  const h = new Uint8Array(BLOCK);
  const put = (text: string, at: number, len: number) => {
    const b = enc.encode(text);
    if (b.length > len) throw new Error(`tar: ${JSON.stringify(text)} is longer than ${len} bytes`);
    h.set(b, at);
  };
  const octal = (n: number, at: number, len: number) => put(n.toString(8).padStart(len - 1, "0") + "\0", at, len);
  put(e.kind === "dir" ? `${e.name}/` : e.name, 0, 100);
  octal(e.kind === "file" ? e.mode : e.kind === "dir" ? 0o755 : 0o777, 100, 8);
  octal(0, 108, 8);
  octal(0, 116, 8);
  octal(e.kind === "file" ? e.data.length : 0, 124, 12);
  octal(mtime, 136, 12);
  put({ file: "0", link: "2", dir: "5" }[e.kind], 156, 1);
  if (e.kind === "link") put(e.target, 157, 100);
  put("ustar\0" + "00", 257, 8);
  put("        ", 148, 8); // the checksum is summed with its own field as spaces
  const sum = h.reduce((a, b) => a + b, 0);
  put(sum.toString(8).padStart(6, "0") + "\0 ", 148, 8);
  return h;
}

/** `level` 9 for releases; 1 where speed matters more than size (tests). */
export function tarGz(entries: TarEntry[], mtime: number, level: 1 | 9 = 9): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const e of entries) {
    parts.push(header(e, mtime));
    if (e.kind === "file") {
      parts.push(e.data);
      const pad = (BLOCK - (e.data.length % BLOCK)) % BLOCK;
      if (pad) parts.push(new Uint8Array(pad));
    }
  }
  parts.push(new Uint8Array(BLOCK * 2));
  const tar = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    tar.set(p, at);
    at += p.length;
  }
  return Bun.gzipSync(tar, { level });
}
