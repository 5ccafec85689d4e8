// The terminal's fonts: the ones termd ships and draws its screenshots with, served by the daemon
// under /fonts/ and declared here as @font-face rules (through the FontFace API, which the page's
// Content-Security-Policy allows where an inline style would not). DejaVu Sans Mono draws the text,
// Droid Sans Fallback CJK, Symbola emoji: a browser falls back glyph by glyph, as resvg does. Each
// glyph's advance is the width xterm.js gives it (two cells for a wide one); these fonts keep the
// glyph inside those cells, where a system's fallback may draw it wider or not at all.

/** The families in the order the screenshots (src/render/svg.ts) name them. */
export const FONT_FAMILY = "'DejaVu Sans Mono', 'Droid Sans Fallback', Symbola, monospace";

const FACES: [family: string, file: string, descriptors: FontFaceDescriptors][] = [
  ["DejaVu Sans Mono", "DejaVuSansMono.ttf", {}],
  ["DejaVu Sans Mono", "DejaVuSansMono-Bold.ttf", { weight: "bold" }],
  ["DejaVu Sans Mono", "DejaVuSansMono-Oblique.ttf", { style: "italic" }],
  ["DejaVu Sans Mono", "DejaVuSansMono-BoldOblique.ttf", { weight: "bold", style: "italic" }],
  ["Droid Sans Fallback", "DroidSansFallbackFull.ttf", {}],
  ["Symbola", "Symbola.ttf", {}],
];

/**
 * Declares the faces; a browser downloads one only once some text needs it. Resolves once the
 * text face is there, so the terminal measures its cells in it.
 */
export async function loadFonts(size: number): Promise<void> {
  for (const [family, file, descriptors] of FACES)
    document.fonts.add(new FontFace(family, `url(/fonts/${file}) format("truetype")`, descriptors));
  await document.fonts.load(`${size}px 'DejaVu Sans Mono'`).catch(() => {});
}

/**
 * Calls `changed` whenever faces finished loading: xterm.js measured the glyphs that needed them
 * in whatever font stood in meanwhile, and must measure them again.
 */
export function onFontsLoaded(changed: () => void): void {
  document.fonts.addEventListener("loadingdone", changed);
}
