import { CreateSchema } from "../../protocol/schemas.ts";
import { command } from "../command.ts";

export default command({
  name: "session.create",
  params: CreateSchema,
  exec: (p, { daemon }) => daemon.store.create(p).info(),
});
