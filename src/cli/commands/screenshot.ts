import { str, UsageError } from "../args.ts";
import { cliCommand, EXIT } from "../command.ts";
import { printJson } from "../format.ts";
import { sessionArg, writeOut } from "./shared.ts";

function formatOf(output: string | undefined, flag: string | undefined): "svg" | "png" {
  if (flag !== undefined) {
    if (flag === "svg" || flag === "png") return flag;
    throw new UsageError(`--format is svg or png, not ${JSON.stringify(flag)}`);
  }
  if (output === undefined || output === "-") return "svg";
  const ext = /\.[^./]*$/.exec(output)?.[0].toLowerCase();
  if (ext === ".svg" || ext === ".png") return ext.slice(1) as "svg" | "png";
  throw new UsageError(`cannot tell the format from ${JSON.stringify(output)}: name a .svg or .png file, or give --format svg|png`);
}

export default cliCommand({
  name: "screenshot",
  summary: "save a picture of a session's screen as SVG or PNG",
  args: "SESSION",
  json: true,
  help: "Draws the screen with its colours, bold, italic, underline, the cursor, wide characters and emoji.\n--json prints {format, width, height, path} instead of nothing.",
  flags: {
    output: {
      kind: "string",
      short: "o",
      value: "FILE.svg|FILE.png",
      help: "where to write it; the format comes from the extension (.svg or .png). Without it (or with -), the picture goes to standard output",
    },
    format: { kind: "string", value: "svg|png", help: "the format, whatever the file is called (default: from FILE, else svg)" },
    scale: { kind: "string", value: "N", help: "PNG pixels per cell pixel, 0.25 to 4 (default 1: 9 × 18 pixels a cell)" },
  },
  async run(a, ctx) {
    const session = sessionArg(a);
    const output = str(a, "output");
    const format = formatOf(output, str(a, "format"));
    const scaleText = str(a, "scale");
    const scale = scaleText === undefined ? undefined : Number(scaleText);
    if (scale !== undefined && !(scale >= 0.25 && scale <= 4))
      throw new UsageError(`--scale is a number from 0.25 to 4, not ${JSON.stringify(scaleText)}`);
    const toStdout = output === undefined || output === "-";
    if (toStdout && format === "png" && process.stdout.isTTY)
      throw new UsageError("a PNG would garble the terminal: give -o FILE.png or redirect standard output");
    const shot = await (await ctx.client()).call("session.screenshot", { session, format, scale });
    const bytes = shot.format === "png" ? Buffer.from(shot.base64!, "base64") : Buffer.from(shot.svg!, "utf8");
    if (toStdout) await writeOut(bytes);
    else {
      const { writeFileSync } = await import("node:fs");
      try {
        writeFileSync(output!, bytes);
      } catch (err) {
        ctx.err(`termd screenshot: cannot write ${output}: ${(err as Error).message}`);
        return EXIT.FAILURE;
      }
    }
    if (ctx.json) printJson(ctx, { format: shot.format, width: shot.width, height: shot.height, path: toStdout ? null : output });
    return EXIT.OK;
  },
});
