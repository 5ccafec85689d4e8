import { expect, test } from "bun:test";
import type { ChildExit } from "../pty/child.ts";
import { endStateOf } from "./end-state.ts";

const exit = (over: Partial<ChildExit> = {}): ChildExit => ({ exitCode: 0, signal: null, ...over });

test("an exit is lost, stopped, killed, failed or exited: the first that applies", () => {
  expect(endStateOf(exit({ lost: "its pty worker died", signal: "SIGKILL" }), true, "SIGKILL")).toBe("lost");
  expect(endStateOf(exit({ signal: "SIGTERM", exitCode: null }), true, "SIGTERM")).toBe("stopped");
  expect(endStateOf(exit({ signal: "SIGINT", exitCode: null }), false, "SIGINT")).toBe("killed");
  expect(endStateOf(exit({ signal: "SIGSEGV", exitCode: null }), false, "SIGINT")).toBe("failed");
  expect(endStateOf(exit({ exitCode: 3 }), false, null)).toBe("failed");
  expect(endStateOf(exit(), false, undefined)).toBe("exited");
});
