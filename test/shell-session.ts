// A bash session for the tests that type command lines into one: no rc file, the prompt "$ ", and
// nothing typed before that prompt is on the screen.
import { expect } from "bun:test";
import type { Client } from "../src/client/index.ts";
import type { ParamsOf } from "../src/protocol/methods.ts";
import type { SessionInfo } from "../src/protocol/schemas.ts";

/** A bash session named `name` with the prompt "$ " on screen, ready for input; `opts` go to session.create. */
export async function shell(c: Client, name: string, opts: Partial<ParamsOf<"session.create">> = {}): Promise<SessionInfo> {
  const info = await c.call("session.create", { name, command: ["bash", "--norc", "--noprofile"], env: { PS1: "$ " }, ...opts });
  expect((await c.call("session.wait", { session: name, regex: "^\\$" })).outcome).toBe("matched");
  return info;
}

/** Types a command line and Enter. */
export function run(c: Client, session: string, line: string) {
  return c.call("session.input", { session, text: `${line}\r` });
}
