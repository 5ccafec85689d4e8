import { ResizeSchema } from "../../protocol/schemas.ts";
import { command } from "../command.ts";

export default command({
  name: "session.resize",
  params: ResizeSchema,
  exec: (p, { daemon }) => {
    const s = daemon.store.get(p.session);
    s.resize({ rows: p.rows, cols: p.cols });
    return { size: s.size };
  },
});
