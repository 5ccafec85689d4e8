// GET /metrics: the daemon's counters in Prometheus' text exposition format (version 0.0.4).
import type { Daemon } from "../daemon/daemon.ts";
import { LATENCY_BUCKETS_S } from "../daemon/metrics.ts";
import type { SessionState } from "../protocol/schemas.ts";

const STATES: SessionState[] = ["running", "exited", "stopped", "killed", "failed", "lost"];

export const METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/** A label value as the format quotes it. */
const quoted = (v: string) => `"${v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`;

export function metricsText(daemon: Daemon): string {
  const out: string[] = [];
  const family = (name: string, type: "counter" | "gauge" | "histogram", help: string) =>
    out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);

  family("termd_sessions", "gauge", "Sessions the daemon holds, by state.");
  const byState = new Map<string, number>(STATES.map((s) => [s, 0]));
  let outputBytes = 0;
  for (const s of daemon.store.list()) {
    byState.set(s.state, (byState.get(s.state) ?? 0) + 1);
    outputBytes += s.output.end;
  }
  for (const [state, n] of byState) out.push(`termd_sessions{state=${quoted(state)}} ${n}`);

  family("termd_session_output_bytes", "gauge", "Output bytes of the sessions the daemon holds.");
  out.push(`termd_session_output_bytes ${outputBytes}`);
  family("termd_received_bytes_total", "counter", "Bytes received from clients on the socket and WebSocket connections.");
  out.push(`termd_received_bytes_total ${daemon.counters.bytesIn}`);
  family("termd_sent_bytes_total", "counter", "Bytes sent to clients on the socket and WebSocket connections.");
  out.push(`termd_sent_bytes_total ${daemon.counters.bytesOut}`);
  family("termd_connections_total", "counter", "Client connections opened (an HTTP request to /rpc or /trl is one).");
  out.push(`termd_connections_total ${daemon.counters.connections}`);

  const methods = [...daemon.metrics.methods].sort(([a], [b]) => a.localeCompare(b));
  family("termd_requests_total", "counter", "Method calls, by method (unknown: a name the daemon has no method for).");
  for (const [m, s] of methods) out.push(`termd_requests_total{method=${quoted(m)}} ${s.requests}`);
  family("termd_request_errors_total", "counter", "Method calls that failed, by method and error code.");
  for (const [m, s] of methods)
    for (const [code, n] of [...s.errors].sort()) out.push(`termd_request_errors_total{method=${quoted(m)},code=${quoted(code)}} ${n}`);
  family("termd_request_duration_seconds", "histogram", "Time from a call's arrival to its reply, by method.");
  for (const [m, s] of methods) {
    let cumulative = 0;
    LATENCY_BUCKETS_S.forEach((le, i) => {
      cumulative += s.buckets[i]!;
      out.push(`termd_request_duration_seconds_bucket{method=${quoted(m)},le="${le}"} ${cumulative}`);
    });
    out.push(`termd_request_duration_seconds_bucket{method=${quoted(m)},le="+Inf"} ${s.requests}`);
    out.push(`termd_request_duration_seconds_sum{method=${quoted(m)}} ${s.sumS}`);
    out.push(`termd_request_duration_seconds_count{method=${quoted(m)}} ${s.requests}`);
  }

  family("termd_uptime_seconds", "gauge", "Seconds since the daemon started.");
  out.push(`termd_uptime_seconds ${daemon.uptimeS()}`);
  family("termd_resident_memory_bytes", "gauge", "The daemon's resident set size.");
  out.push(`termd_resident_memory_bytes ${process.memoryUsage.rss()}`);
  return out.join("\n") + "\n";
}
