// `interminai resize --size COLSxROWS`: the PTY (the program gets SIGWINCH) and the screen.
import { parseSize, SOCKET, type Subcommand } from "./args.ts";
import { call } from "./request.ts";
import { writeOut } from "../closed-stdout.ts";

export const resize: Subcommand = {
  name: "resize",
  about: "Resize the terminal",
  opts: [SOCKET, { long: "size", value: "SIZE", help: "New terminal size (e.g., 120x40)", required: true }],
  async run(a) {
    const { cols, rows } = parseSize(a.values.get("size")!);
    await call(a.values.get("socket")!, { type: "RESIZE", cols, rows });
    await writeOut(`Terminal resized to ${cols}x${rows}\n`);
    return 0;
  },
};
