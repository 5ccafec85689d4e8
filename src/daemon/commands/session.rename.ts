import { RenameSchema } from "../../protocol/schemas.ts";
import { sessionCommand } from "../command.ts";
import { infoOf } from "../session-info.ts";

export default sessionCommand({
  name: "session.rename",
  params: RenameSchema,
  target: {},
  exec: (p, { daemon }, s) => {
    daemon.store.rename(s, p.name);
    return infoOf(s);
  },
});
