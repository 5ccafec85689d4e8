// What the daemon counts for GET /metrics: requests, errors and latency by method, from every
// dialect and transport (dispatch.ts records each call, under "unknown" for a name the daemon has
// no method for, so a client sending made-up names cannot grow the set of labels without bound).

/** Upper bounds (seconds) of the latency histogram's buckets; a session.wait may rightly take minutes. */
export const LATENCY_BUCKETS_S = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30, 120];

export interface MethodStats {
  requests: number;
  /** By error name (SESSION_NOT_FOUND, INVALID_PARAMS…). */
  errors: Map<string, number>;
  /** Counts per bucket of LATENCY_BUCKETS_S (not cumulative; the last is above every bound). */
  buckets: number[];
  sumS: number;
}

export class Metrics {
  readonly methods = new Map<string, MethodStats>();

  /** One call of `method` that took `seconds`, failing with `error` (its name) or not. */
  observe(method: string, seconds: number, error?: string): void {
    let m = this.methods.get(method);
    if (!m)
      this.methods.set(method, (m = { requests: 0, errors: new Map(), buckets: new Array(LATENCY_BUCKETS_S.length + 1).fill(0), sumS: 0 }));
    m.requests++;
    m.sumS += seconds;
    const i = LATENCY_BUCKETS_S.findIndex((b) => seconds <= b);
    m.buckets[i === -1 ? LATENCY_BUCKETS_S.length : i]!++;
    if (error !== undefined) m.errors.set(error, (m.errors.get(error) ?? 0) + 1);
  }
}
