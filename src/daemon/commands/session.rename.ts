import { RenameSchema } from "../../protocol/schemas.ts";
import { command } from "../command.ts";

export default command({
  name: "session.rename",
  params: RenameSchema,
  exec: (p, { daemon }) => {
    const s = daemon.store.get(p.session);
    daemon.store.rename(s, p.name);
    return s.info();
  },
});
