// SVG → PNG with resvg's WebAssembly build and the fonts shipped in assets/fonts: the same pixels
// from source and from the compiled binary, which embeds the .wasm and the fonts as files. resvg
// finds a glyph a font lacks in the next one (CJK in Droid Sans Fallback, emoji in Symbola). This
// is synchronous, CPU-bound work (tens of milliseconds): the daemon runs it in png-worker.ts.
import { readFileSync } from "node:fs";
import { initWasm, Resvg } from "@resvg/resvg-wasm";
import wasmPath from "@resvg/resvg-wasm/index_bg.wasm" with { type: "file" };
import { FONT_FILES } from "./fonts.ts";

/** Largest zoom: a 1000×1000 screen at 4× would already be a 36000×72000 picture. */

let ready: Promise<Uint8Array[]> | null = null;

/** Loads the WebAssembly module and the fonts once. */
function load(): Promise<Uint8Array[]> {
  return (ready ??= (async () => {
    await initWasm(readFileSync(wasmPath));
    return Object.values(FONT_FILES).map((p) => new Uint8Array(readFileSync(p)));
  })());
}

/** The SVG as a PNG, `scale` times its size (1 to 4). */
export async function svgToPng(svg: string, scale = 1): Promise<Uint8Array> {
  const fontBuffers = await load();
  const r = new Resvg(svg, {
    font: { fontBuffers, defaultFontFamily: "DejaVu Sans Mono", monospaceFamily: "DejaVu Sans Mono" },
    fitTo: scale === 1 ? { mode: "original" } : { mode: "zoom", value: scale },
    shapeRendering: 1,
  });
  try {
    const image = r.render();
    try {
      return image.asPng();
    } finally {
      image.free();
    }
  } finally {
    r.free();
  }
}
