// session.wait: resolves on the first of the asked conditions, or on the session's end, or on
// the timeout. Evaluated on every screen change and exit, plus one timer for the quiet period, so
// a pending wait costs nothing while nothing happens and never blocks other requests.
import { RpcError } from "../protocol/errors.ts";
import type { WaitInput, WaitOutcome, WaitResult } from "../protocol/schemas.ts";
import type { LinePattern, Match } from "../terminal/screen.ts";
import { RE2JS } from "re2js";
import type { Session } from "./session.ts";

/**
 * Patterns come from clients and run against text programs control, on the daemon's one thread:
 * a backtracking engine (JavaScript's RegExp) can take minutes on `(a+)+$`, so they run on RE2's
 * linear-time engine instead (RE2 syntax: no backreferences or lookaround).
 */
export function compileRegex(src: string): LinePattern {
  let re: RE2JS;
  try {
    re = RE2JS.compile(src);
  } catch (err) {
    throw new RpcError("INVALID_PARAMS", `invalid regex (RE2 syntax): ${(err as Error).message}`);
  }
  return {
    match(line) {
      const m = re.matcher(line);
      return m.find() ? { col: m.start(), text: m.group(0) ?? "" } : null;
    },
  };
}

export function waitFor(s: Session, p: WaitInput, abort: AbortSignal): Promise<WaitResult> {
  const regex = p.regex !== undefined ? compileRegex(p.regex) : undefined;
  const startOffset = s.ring.end;
  const { promise, resolve } = Promise.withResolvers<WaitResult>();
  let settleTimer: Timer | undefined;
  let done = false;

  const finish = (outcome: WaitOutcome, match?: Match) => {
    if (done) return;
    done = true;
    cleanup();
    const result: WaitResult = { outcome, screen: s.snapshot("text") };
    if (match) result.match = match;
    if (!s.running) {
      result.exit_code = s.exitCode;
      result.signal = s.signal;
    }
    resolve(result);
  };

  const evaluate = () => {
    if (done) return;
    const lines = s.screen.lines();
    if (p.text !== undefined) {
      const m = s.screen.find(p.text, lines);
      if (m) return finish("matched", m);
    }
    if (regex) {
      const m = s.screen.find(regex, lines);
      if (m) return finish("matched", m);
    }
    if (p.gone !== undefined && !s.screen.find(p.gone, lines)) return finish("matched");
    if (p.changed_from !== undefined && s.screen.hash(lines) !== p.changed_from) return finish("changed");
    if (p.activity && s.ring.end > startOffset) return finish("activity");
    if (p.settle_ms !== undefined) {
      // Inside ?2026h … ?2026l the app is between frames: what the screen shows is half drawn.
      // No timer then: the ?2026l that ends the frame is output, and output evaluates again.
      const midFrame = s.modes.synchronized_output;
      const quietFor = performance.now() - s.lastActivity;
      if (quietFor >= p.settle_ms && s.screenCurrent && s.running && !midFrame) return finish("settled");
      clearTimeout(settleTimer);
      if (!midFrame) settleTimer = setTimeout(evaluate, Math.max(1, p.settle_ms - quietFor));
    }
    if (!s.running) return finish("exited");
  };

  const off = s.on((e) => {
    if (e.type === "screen" || e.type === "exit" || (e.type === "output" && p.activity)) evaluate();
  });
  const timeout = setTimeout(() => finish("timeout"), p.timeout_ms);
  const onAbort = () => finish("timeout");
  abort.addEventListener("abort", onAbort);
  function cleanup() {
    off();
    clearTimeout(timeout);
    clearTimeout(settleTimer);
    abort.removeEventListener("abort", onAbort);
  }

  // A caller already gone (a client that hung up before this ran) would never hear "abort".
  if (abort.aborted) finish("timeout");
  else evaluate();
  return promise;
}
