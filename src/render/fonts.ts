// The fonts termd ships (assets/fonts) and the compiled binary embeds, as files: the PNG renderer
// reads them, and the HTTP server hands them to the attach page under /fonts/NAME, so the page
// draws wide characters with the same glyphs as the screenshots. First choice first.
import mono from "../../assets/fonts/DejaVuSansMono.ttf" with { type: "file" };
import monoBold from "../../assets/fonts/DejaVuSansMono-Bold.ttf" with { type: "file" };
import monoOblique from "../../assets/fonts/DejaVuSansMono-Oblique.ttf" with { type: "file" };
import monoBoldOblique from "../../assets/fonts/DejaVuSansMono-BoldOblique.ttf" with { type: "file" };
import cjk from "../../assets/fonts/DroidSansFallbackFull.ttf" with { type: "file" };
import emoji from "../../assets/fonts/Symbola.ttf" with { type: "file" };

/**
 * Each shipped font by its file name in assets/fonts, to its path here (in the compiled binary a
 * name under /$bunfs/ that Bun chose).
 */
export const FONT_FILES: Readonly<Record<string, string>> = {
  "DejaVuSansMono.ttf": mono,
  "DejaVuSansMono-Bold.ttf": monoBold,
  "DejaVuSansMono-Oblique.ttf": monoOblique,
  "DejaVuSansMono-BoldOblique.ttf": monoBoldOblique,
  "DroidSansFallbackFull.ttf": cjk,
  "Symbola.ttf": emoji,
};
