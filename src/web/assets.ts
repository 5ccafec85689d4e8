// The attach page's files: bundled into the executable by `bun build --compile` (an HTML import
// carries its built files there), or bundled once on first request when termd runs from source.
// Each is served under its own name ("/" for the HTML), so the page's absolute links resolve. The
// fonts the binary embeds for screenshots are served too, under /fonts/NAME, for the page's
// @font-face rules (not bundled with the page, which would embed them twice).
import { basename } from "node:path";
import { FONT_FILES } from "../render/fonts.ts";
import page from "./page/index.html";

export interface Asset {
  body: Blob;
  type: string;
  /** How long a browser may keep it without asking again. */
  cacheControl: string;
}

/** The page's own files change with every build: always revalidated. */
const PAGE_CACHE = "no-cache";
/** The fonts (several MB) change only with termd's version: a day without asking again. */
const FONT_CACHE = "private, max-age=86400";

function addFonts(assets: Map<string, Asset>): void {
  for (const [name, path] of Object.entries(FONT_FILES))
    assets.set(`/fonts/${name}`, { body: Bun.file(path), type: "font/ttf", cacheControl: FONT_CACHE });
}

let loading: Promise<Map<string, Asset>> | null = null;

async function load(): Promise<Map<string, Asset>> {
  const assets = new Map<string, Asset>();
  const add = (path: string, body: Blob, type: string) =>
    assets.set(type.startsWith("text/html") ? "/" : `/${basename(path)}`, { body, type, cacheControl: PAGE_CACHE });
  addFonts(assets);
  if (page.files) {
    for (const f of page.files) add(f.path, Bun.file(f.path), f.headers["content-type"]);
    return assets;
  }
  const built = await Bun.build({ entrypoints: [page.index], target: "browser", minify: true, publicPath: "/" });
  if (!built.success) throw new Error(`the attach page did not build: ${built.logs.join("\n")}`);
  for (const o of built.outputs) add(o.path, o, o.type);
  return assets;
}

export function pageAssets(): Promise<Map<string, Asset>> {
  loading ??= load().catch((err) => {
    loading = null;
    throw err;
  });
  return loading;
}
