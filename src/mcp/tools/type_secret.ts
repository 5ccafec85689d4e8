import * as v from "valibot";
import { ToolError, tool, text } from "../tool.ts";
import { Session } from "./params.ts";

export default tool({
  name: "type_secret",
  title: "Have the user type a password",
  annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
  description: [
    "For a password or passphrase prompt (sudo, ssh, gpg, a login): asks the user directly through the MCP host (elicitation),",
    "types the answer into the session and presses Enter. The answer goes only to the program: it never appears in this conversation.",
    "Never ask the user for a secret in chat. If the host cannot ask, this tells you to have the user run `termd attach SESSION` and type it there.",
  ].join(" "),
  params: v.object({
    session: Session,
    prompt: v.pipe(v.string(), v.minLength(1), v.description("What to tell the user, e.g. 'sudo password for alice on build-box'.")),
  }),
  async run(p, ctx) {
    const info = await ctx.call("session.info", { session: p.session });
    if (!ctx.elicit)
      throw new ToolError(
        `this MCP host cannot ask the user (no elicitation support); ask the user to run \`termd attach ${info.name}\` in a terminal, type the secret at the prompt there and detach with Ctrl-\\, then wait_for the program to go on`,
      );
    const answer = await ctx.elicit(`${p.prompt}\n(termd session ${info.name}: typed into the program and never shown to the agent)`, {
      type: "object",
      properties: { secret: { type: "string", title: p.prompt, description: "Typed into the terminal program, followed by Enter." } },
      required: ["secret"],
    });
    if (answer.action !== "accept" || typeof answer.content?.secret !== "string")
      return text(
        `the user did not give it (${answer.action}); nothing was typed. The program still waits at its prompt: ask the user how to go on, or press_keys ["Ctrl+C"]`,
        { typed: false, action: answer.action },
      );
    ctx.typedInto.add(p.session);
    await ctx.call("session.input", { session: info.id, text: answer.content.secret + "\r", secret: true });
    return text(`the user's answer was typed into ${info.name}, followed by Enter; use wait_for to see what the program does next`, {
      typed: true,
    });
  },
});
