import { str } from "../args.ts";
import { cliCommand, EXIT } from "../command.ts";
import { defaultStateDir } from "../../protocol/paths.ts";
import { noMoreArgs } from "./shared.ts";

export default cliCommand({
  name: "token",
  summary: "print the token HTTP clients and the attach page need (termd daemon --http)",
  help: [
    "Prints $TERMD_TOKEN when it is set, else the token in the state dir's http-token file (mode",
    "0600), generating one there when there is none yet: the token `termd daemon --http` uses.",
  ].join("\n"),
  flags: {
    "state-dir": { kind: "string", value: "DIR", help: "read another daemon's (default $TERMD_STATE_DIR or ~/.local/state/termd)" },
  },
  async run(a, ctx) {
    noMoreArgs(a);
    const { loadToken } = await import("../../protocol/token.ts");
    ctx.out(loadToken(str(a, "state-dir") ?? defaultStateDir()).value);
    return EXIT.OK;
  },
});
