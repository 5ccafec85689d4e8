import { ScreenshotSchema } from "../../protocol/schemas.ts";
import { command } from "../command.ts";
import { CELL_H, CELL_W, renderSvg } from "../../render/svg.ts";

export default command({
  name: "session.screenshot",
  params: ScreenshotSchema,
  exec: async (p, { daemon }) => {
    const screen = await daemon.store.get(p.session).snapshot("cells", 0);
    const svg = renderSvg(screen);
    const width = screen.size.cols * CELL_W;
    const height = screen.size.rows * CELL_H;
    if (p.format === "svg") return { format: "svg", width, height, svg };
    const png = await daemon.rasterizer.png(svg, p.scale);
    // The size as the PNG's header gives it (IHDR: width and height at bytes 16 and 20).
    const ihdr = new DataView(png.buffer, png.byteOffset, png.byteLength);
    return { format: "png", width: ihdr.getUint32(16), height: ihdr.getUint32(20), base64: Buffer.from(png).toString("base64") };
  },
});
