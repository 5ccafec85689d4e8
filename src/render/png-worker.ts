// The thread that turns SVG into PNG (png.ts) for the daemon, whose own thread must stay free to
// move bytes: a 200×60 screen takes resvg tens of milliseconds.
import { svgToPng } from "./png.ts";
import type { FromPngWorker, ToPngWorker } from "./png-messages.ts";

declare const self: Worker;

self.onmessage = async (ev: MessageEvent<ToPngWorker>) => {
  const { id, svg, scale } = ev.data;
  try {
    const png = await svgToPng(svg, scale);
    self.postMessage({ id, png } satisfies FromPngWorker, [png.buffer as ArrayBuffer]);
  } catch (err) {
    self.postMessage({ id, error: err instanceof Error ? err.message : String(err) } satisfies FromPngWorker);
  }
};
