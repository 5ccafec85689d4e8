import { expect, test } from "bun:test";
import { consoleServer } from "./console.ts";
import { DIALECTS } from "./index.ts";
import { interminai } from "./interminai.ts";
import { jsonRpc } from "./json-rpc.ts";
import { ralph } from "./ralph.ts";
import { trl } from "./trl.ts";

const daemonSocket = { perSession: false };
const sessionSocket = { perSession: true };

test("on the daemon's socket the first message picks the dialect; what none claims, or no JSON, is native JSON-RPC", () => {
  const pick = (first: unknown) => DIALECTS.pick(first, daemonSocket).name;
  expect(pick({ jsonrpc: "2.0", method: "system.ping" })).toBe(jsonRpc.name);
  expect(pick({ type: "STATUS" })).toBe(interminai.name);
  expect(pick({ cmd: "ping" })).toBe(consoleServer.name);
  expect(pick({ id: "1", method: "system.ping" })).toBe(trl.name);
  // JSON-RPC wins over what else the message has.
  expect(pick({ jsonrpc: "2.0", method: "x", cmd: "ping", type: "STATUS" })).toBe(jsonRpc.name);
  expect(pick({ hello: 1 })).toBe(jsonRpc.name);
  expect(pick(undefined)).toBe(jsonRpc.name);
  expect(pick([1])).toBe(jsonRpc.name);
});

test("on a session's own socket JSON-RPC is ralph's, and only a dialect the socket was made for answers anything else", () => {
  expect(DIALECTS.pick({ jsonrpc: "2.0", method: "get_status" }, sessionSocket)).toBe(ralph);
  expect(DIALECTS.pick({ type: "STATUS" }, sessionSocket)).toBe(ralph);
  expect(DIALECTS.pick(undefined, sessionSocket)).toBe(ralph);
  const own = { perSession: true, own: interminai };
  expect(DIALECTS.pick({ type: "STATUS" }, own)).toBe(interminai);
  expect(DIALECTS.pick(undefined, own)).toBe(interminai);
  expect(DIALECTS.pick({ jsonrpc: "2.0", method: "get_status" }, own)).toBe(ralph);
  expect(DIALECTS.pick({ hello: 1 }, own)).toBe(interminai);
});

test("a socket's own dialect is named among the foreign ones; JSON-RPC's two are the defaults", () => {
  expect(DIALECTS.named("interminai")).toBe(interminai);
  expect(DIALECTS.named("console")).toBe(consoleServer);
  expect(DIALECTS.named("trl")).toBe(trl);
  expect(DIALECTS.named("ralph")).toBeUndefined();
  expect(DIALECTS.named("native")).toBeUndefined();
  expect([DIALECTS.native, DIALECTS.sessionDefault]).toEqual([jsonRpc, ralph]);
});
