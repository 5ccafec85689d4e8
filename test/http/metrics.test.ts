// GET /healthz answers without a token; GET /metrics needs it and serves Prometheus' text format:
// sessions by state, bytes in and out, requests and errors by method, a latency histogram.
import { expect, test } from "bun:test";
import { procfs } from "../../src/platform/procfs.ts";
import { startHttpDaemon } from "./http-daemon.ts";

/** The samples of a Prometheus text exposition, checked line by line for its grammar. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.trimEnd().split("\n")) {
    if (line.startsWith("# ")) {
      expect(line).toMatch(/^# (HELP|TYPE) termd_[a-z_]+ .+$/);
      continue;
    }
    const m = /^(termd_[a-z_]+(?:\{[a-z_]+="[^"]*"(?:,[a-z_]+="[^"]*")*\})?) (\S+)$/.exec(line);
    expect(m).not.toBeNull();
    out.set(m![1]!, Number(m![2]));
  }
  return out;
}

test("/healthz without a token, /metrics with it: sessions, bytes, requests, errors and latency", async () => {
  const h = await startHttpDaemon();
  await using d = h.daemon;
  // Any Host: a probe names the pod as it likes.
  const health = await fetch(`${h.url}/healthz`, { headers: { Host: "sandbox-7.svc.cluster.local" } });
  expect([health.status, await health.text()]).toEqual([200, "ok\n"]);
  const refused = await fetch(`${h.url}/metrics`);
  expect(refused.status).toBe(401);

  const c = await d.client();
  const s = await c.call("session.create", { command: ["bash", "--norc", "--noprofile"], env: { PS1: "$ " } });
  await c.call("session.input", { session: s.id, text: "echo hi\r" });
  await c.call("session.wait", { session: s.id, regex: "^hi$" });
  const ended = await c.call("session.create", { command: ["true"] });
  await c.call("session.wait", { session: ended.id, exit: true });
  await expect(c.call("session.info", { session: "nobody" })).rejects.toMatchObject({ name: "SESSION_NOT_FOUND" });
  await expect(c.call("no.such.method" as "system.ping")).rejects.toMatchObject({ name: "METHOD_NOT_FOUND" });
  await h.rpc("system.ping");

  const r = await fetch(`${h.url}/metrics`, { headers: h.auth });
  expect(r.status).toBe(200);
  expect(r.headers.get("content-type")).toStartWith("text/plain; version=0.0.4");
  const m = samples(await r.text());
  expect(m.get('termd_sessions{state="running"}')).toBe(1);
  expect(m.get('termd_sessions{state="exited"}')).toBe(1);
  expect(m.get('termd_sessions{state="lost"}')).toBe(0);
  expect(m.get("termd_session_output_bytes")).toBeGreaterThan(0);
  expect(m.get("termd_received_bytes_total")).toBeGreaterThan(0);
  expect(m.get("termd_sent_bytes_total")).toBeGreaterThan(0);
  expect(m.get('termd_requests_total{method="session.create"}')).toBe(2);
  expect(m.get('termd_requests_total{method="system.ping"}')).toBe(1);
  expect(m.get('termd_request_errors_total{method="session.info",code="SESSION_NOT_FOUND"}')).toBe(1);
  expect(m.get('termd_request_errors_total{method="unknown",code="METHOD_NOT_FOUND"}')).toBe(1);
  expect(m.has('termd_requests_total{method="no.such.method"}')).toBe(false);
  // The histogram: cumulative buckets, +Inf equal to the count, one observation per call.
  const buckets = [...m].filter(([k]) => k.startsWith('termd_request_duration_seconds_bucket{method="session.wait"')).map(([, v]) => v);
  expect(buckets.length).toBeGreaterThan(2);
  expect(buckets).toEqual([...buckets].sort((a, b) => a - b));
  expect(buckets.at(-1)).toBe(2);
  expect(m.get('termd_request_duration_seconds_count{method="session.wait"}')).toBe(2);
  expect(m.get('termd_request_duration_seconds_sum{method="session.wait"}')).toBeGreaterThan(0);
});

test("/healthz says 503 stopping while the daemon shuts down", async () => {
  const h = await startHttpDaemon();
  await using d = h.daemon;
  const c = await d.client();
  // A program that shrugs off the hangup and SIGTERM keeps the shutdown in its grace.
  const s = await c.call("session.create", { command: ["sh", "-c", 'trap "" HUP TERM; echo ready; while :; do sleep 1; done'] });
  await c.call("session.wait", { session: s.id, text: "ready" });
  void c.call("system.shutdown", { grace_ms: 20_000 }).catch(() => {});
  let r: Response;
  for (let i = 0; (r = await fetch(`${h.url}/healthz`)).status === 200; i++) expect(i).toBeLessThan(1000);
  expect([r.status, await r.text()]).toEqual([503, "stopping\n"]);
  // The grace need not run out: the program's end lets the shutdown finish.
  for (const pid of procfs.sessionMembers(s.pid!)) process.kill(pid, "SIGKILL");
  expect(await d.proc.exited).toBe(0);
});
