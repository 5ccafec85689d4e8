import { RenameSchema } from "../../protocol/schemas.ts";
import { sessionCommand } from "../command.ts";

export default sessionCommand({
  name: "session.rename",
  params: RenameSchema,
  target: {},
  exec: (p, { daemon }, s) => {
    daemon.store.rename(s, p.name);
    return s.info();
  },
});
