import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import type { Command, Target } from "../command.ts";
import { COMMANDS } from "./index.ts";

/** The issues a params object gets at `session`. */
function sessionIssues(cmd: Command, params: object): v.BaseIssue<unknown>[] {
  const r = v.safeParse(cmd.params, params);
  return r.success ? [] : r.issues.filter((i) => i.path?.[0]?.key === "session");
}

const targetOf = (cmd: Command, params: object): Target => (typeof cmd.target === "function" ? cmd.target(params) : cmd.target!);

describe("the method table", () => {
  test("each method is under its own name", () => {
    for (const [name, cmd] of COMMANDS) expect(cmd.name).toBe(name);
  });

  test("every method whose params name a session declares its target, and only those", () => {
    for (const cmd of COMMANDS.values()) {
      const needsSession = sessionIssues(cmd, {}).length > 0;
      const takesSession = sessionIssues(cmd, { session: 7 }).length > 0 && sessionIssues(cmd, { session: "s" }).length === 0;
      expect([cmd.name, cmd.target !== undefined]).toEqual([cmd.name, needsSession || takesSession]);
    }
  });

  test("what types into a session or resizes it needs it running and not held by another; reading does not", () => {
    const get = (name: string) => COMMANDS.get(name)!;
    expect(targetOf(get("session.input"), {})).toEqual({ running: true, write: "input", typing: true });
    expect(targetOf(get("session.resize"), {})).toMatchObject({ running: true, write: "a resize" });
    expect(targetOf(get("session.signal"), {})).toEqual({ running: true });
    expect(targetOf(get("exec.run"), { fresh: false }).write).toBeString();
    // A fresh run never touches the terminal: a holder does not stop it.
    expect(targetOf(get("exec.run"), { fresh: true })).toEqual({ running: true });
    expect(targetOf(get("session.subscribe"), { take_over: true }).write).toBeString();
    for (const name of [
      "session.info",
      "session.screen",
      "session.output",
      "session.wait",
      "session.stop",
      "session.remove",
      "exec.cancel",
    ]) {
      expect([name, targetOf(get(name), {})]).toEqual([name, {}]);
    }
  });

  test("no handler finds or checks its target itself: dispatch does, once", () => {
    const own = /\bstore\.get\(|\.hold\.check\(|\bnotRunning\(|"SESSION_(NOT_RUNNING|HELD|NOT_FOUND)"/;
    const files = readdirSync(import.meta.dir).filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"));
    expect(files.length).toBeGreaterThan(20);
    expect(files.filter((f) => own.test(readFileSync(join(import.meta.dir, f), "utf8")))).toEqual([]);
  });
});
