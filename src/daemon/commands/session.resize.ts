import { RpcError } from "../../protocol/errors.ts";
import { MAX_SCREEN_CELLS, ResizeSchema } from "../../protocol/schemas.ts";
import { sessionCommand } from "../command.ts";

export default sessionCommand({
  name: "session.resize",
  params: ResizeSchema,
  // An ended session's final screen stays as the program left it.
  target: { running: true, write: "a resize" },
  exec: (p, { peer }, s) => {
    const size = { rows: p.rows, cols: p.cols };
    if (size.cols * (size.rows + s.stream.scrollback) > MAX_SCREEN_CELLS) {
      throw new RpcError(
        "INVALID_PARAMS",
        `${size.rows}x${size.cols} with ${s.stream.scrollback} lines of scrollback is over ${MAX_SCREEN_CELLS} cells (MAX_SCREEN_CELLS)`,
      );
    }
    // From an attached terminal this is its window's size: the session follows the smallest.
    const sub = peer.subscription(s);
    if (sub?.attached) sub.setSize(size);
    else s.resize(size);
    return { size: s.stream.size };
  },
});
