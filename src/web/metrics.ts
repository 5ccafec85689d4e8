// GET /metrics: the daemon's counters in Prometheus' text exposition format (version 0.0.4).
import type { SessionState } from "../protocol/schemas.ts";
import type { MetricsView } from "./web-host.ts";

const STATES: SessionState[] = ["running", "exited", "stopped", "killed", "failed", "lost"];

export const METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/** A label value as the format quotes it. */
const quoted = (v: string) => `"${v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`;

export function metricsText(m: MetricsView): string {
  const out: string[] = [];
  const family = (name: string, type: "counter" | "gauge" | "histogram", help: string) =>
    out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);

  family("termd_sessions", "gauge", "Sessions the daemon holds, by state.");
  const byState = new Map<string, number>(STATES.map((s) => [s, 0]));
  let outputBytes = 0;
  for (const s of m.sessions) {
    byState.set(s.state, (byState.get(s.state) ?? 0) + 1);
    outputBytes += s.outputBytes;
  }
  for (const [state, n] of byState) out.push(`termd_sessions{state=${quoted(state)}} ${n}`);

  family("termd_session_output_bytes", "gauge", "Output bytes of the sessions the daemon holds.");
  out.push(`termd_session_output_bytes ${outputBytes}`);
  family("termd_received_bytes_total", "counter", "Bytes received from clients on the socket and WebSocket connections.");
  out.push(`termd_received_bytes_total ${m.counters.bytesIn}`);
  family("termd_sent_bytes_total", "counter", "Bytes sent to clients on the socket and WebSocket connections.");
  out.push(`termd_sent_bytes_total ${m.counters.bytesOut}`);
  family("termd_connections_total", "counter", "Client connections opened (an HTTP request to /rpc or /trl is one).");
  out.push(`termd_connections_total ${m.counters.connections}`);

  const methods = [...m.methods].sort(([a], [b]) => a.localeCompare(b));
  family("termd_requests_total", "counter", "Method calls, by method (unknown: a name the daemon has no method for).");
  for (const [name, s] of methods) out.push(`termd_requests_total{method=${quoted(name)}} ${s.requests}`);
  family("termd_request_errors_total", "counter", "Method calls that failed, by method and error code.");
  for (const [name, s] of methods)
    for (const [code, n] of [...s.errors].sort()) out.push(`termd_request_errors_total{method=${quoted(name)},code=${quoted(code)}} ${n}`);
  family("termd_request_duration_seconds", "histogram", "Time from a call's arrival to its reply, by method.");
  for (const [name, s] of methods) {
    let cumulative = 0;
    m.latencyBucketsS.forEach((le, i) => {
      cumulative += s.buckets[i]!;
      out.push(`termd_request_duration_seconds_bucket{method=${quoted(name)},le="${le}"} ${cumulative}`);
    });
    out.push(`termd_request_duration_seconds_bucket{method=${quoted(name)},le="+Inf"} ${s.requests}`);
    out.push(`termd_request_duration_seconds_sum{method=${quoted(name)}} ${s.sumS}`);
    out.push(`termd_request_duration_seconds_count{method=${quoted(name)}} ${s.requests}`);
  }

  family("termd_uptime_seconds", "gauge", "Seconds since the daemon started.");
  out.push(`termd_uptime_seconds ${m.uptimeS}`);
  family("termd_resident_memory_bytes", "gauge", "The daemon's resident set size.");
  out.push(`termd_resident_memory_bytes ${process.memoryUsage.rss()}`);
  return out.join("\n") + "\n";
}
