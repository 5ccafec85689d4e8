// `interminai status`: running or not, the activity flag (read and cleared), size, scrollback and
// the exit code; exit 0 either way. --quiet: nothing and 0 while running, else the code and 1.
import { SOCKET, type Subcommand } from "./args.ts";
import { call } from "./request.ts";
import { writeOut } from "../closed-stdout.ts";

export const status: Subcommand = {
  name: "status",
  about: "Get session status",
  opts: [SOCKET, { long: "quiet", help: "Quiet mode: just exit status (0 if running, 1 if exited)" }],
  async run(a) {
    const quiet = a.flags.has("quiet");
    const data = await call(a.values.get("socket")!, { type: "STATUS", activity: !quiet });
    const running = data.running === true;
    if (quiet) {
      if (running) return 0;
      if ("exit_code" in data) await writeOut(`${JSON.stringify(data.exit_code)}\n`);
      return 1;
    }
    const lines = [`Running: ${running}`, `Activity: ${data.activity === true}`];
    const size = data.size as { rows: number; cols: number } | undefined;
    if (size) lines.push(`Size: ${size.cols}x${size.rows}`);
    if (typeof data.scrollback_available === "number") lines.push(`Scrollback: ${data.scrollback_available}/${data.scrollback_capacity}`);
    if (!running && "exit_code" in data) lines.push(`Exit code: ${JSON.stringify(data.exit_code)}`);
    await writeOut(lines.map((l) => l + "\n").join(""));
    return 0;
  },
};
