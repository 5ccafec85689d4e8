import * as v from "valibot";
import { tool } from "../tool.ts";
import { Session } from "./params.ts";

export default tool({
  name: "screenshot",
  title: "Take a screenshot",
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  description: [
    "Returns a PNG picture of the session's screen as it looks in a terminal (colours, bold, inverse, the cursor), for when layout or colour matters:",
    "highlighted selections, diffs, status bars, charts. For reading text, read_screen is cheaper and exact.",
  ].join(" "),
  params: v.object({
    session: Session,
    scale: v.optional(
      v.pipe(v.number(), v.minValue(0.25), v.maxValue(2), v.description("Pixels per cell pixel (a cell is 9x18 at 1); default 1.")),
    ),
  }),
  async run(p, ctx) {
    const shot = await ctx.call("session.screenshot", { session: p.session, format: "png", scale: p.scale });
    return {
      content: [
        { type: "image", data: shot.base64!, mimeType: "image/png" },
        { type: "text", text: `screenshot of ${p.session}: ${shot.width}x${shot.height} pixels` },
      ],
    };
  },
});
