import { MAX_PNG_PIXELS, ScreenshotSchema } from "../../protocol/schemas.ts";
import { TermdError } from "../../terminal/errors.ts";
import { sessionCommand } from "../command.ts";
import { CELL_H, CELL_W, renderSvg } from "../../render/svg.ts";

export default sessionCommand({
  name: "session.screenshot",
  params: ScreenshotSchema,
  target: {},
  exec: async (p, { daemon, signal }, s) => {
    const screen = await s.stream.snapshot("cells", 0);
    const width = screen.size.cols * CELL_W;
    const height = screen.size.rows * CELL_H;
    if (p.format === "svg") return { format: "svg", width, height, svg: renderSvg(screen) };
    const pixels = Math.ceil(width * p.scale) * Math.ceil(height * p.scale);
    if (pixels > MAX_PNG_PIXELS)
      throw new TermdError(
        "BAD_ARGUMENT",
        `a PNG of this ${screen.size.rows}x${screen.size.cols} screen at scale ${p.scale} would have ${pixels} pixels, over the ${MAX_PNG_PIXELS} a screenshot may have (MAX_PNG_PIXELS): ask for a smaller scale, or SVG`,
        { pixels, max_pixels: MAX_PNG_PIXELS },
      );
    const svg = renderSvg(screen);
    const png = await daemon.rasterizer.png(svg, p.scale, pixels, signal);
    // The size as the PNG's header gives it (IHDR: width and height at bytes 16 and 20).
    const ihdr = new DataView(png.buffer, png.byteOffset, png.byteLength);
    return { format: "png", width: ihdr.getUint32(16), height: ihdr.getUint32(20), base64: Buffer.from(png).toString("base64") };
  },
});
