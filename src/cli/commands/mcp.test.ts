// termd mcp through the real entry, as an agent host starts it: requests on standard input, answers
// on standard output, and the end of its input ends it. (Its tools: test/mcp/.)
import { expect, test } from "bun:test";
import { sharedDaemon } from "../../../test/harness.ts";

const s = sharedDaemon();

const request = (id: number, method: string, params: object = {}) => JSON.stringify({ jsonrpc: "2.0", id, method, params });

test("mcp answers initialize and tools/list on stdio, and exits 0 when its input ends", async () => {
  const init = request(1, "initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "cli-test", version: "1" },
  });
  const stdin = [init, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }), request(2, "tools/list")].join("\n") + "\n";
  const r = await s.d.cli(["mcp"], { stdin });
  expect(r.code).toBe(0);
  const answers = r.stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  expect(answers.map((a) => a.id)).toEqual([1, 2]);
  expect(answers[0].result.serverInfo.name).toBe("termd");
  expect(answers[1].result.tools.map((t: { name: string }) => t.name)).toContain("start_session");
});

test("mcp takes no arguments", async () => {
  expect(await s.d.cli(["mcp", "extra"])).toMatchObject({
    code: 2,
    stderr: expect.stringContaining("termd mcp: unexpected argument extra"),
  });
});
