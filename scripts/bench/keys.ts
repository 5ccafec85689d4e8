// 2. Key round trip: one character into `cat` until the screen shows its echo.
import { until } from "../concurrency.ts";
import type { Client } from "../../src/client/index.ts";
import { Tmux } from "./tmux.ts";
import { childEnv } from "../common/daemon-process.ts";
import { verdict } from "./report.ts";
import { f2, percentile, table } from "../common/measure.ts";
import type { Options } from "./flags.ts";

const KEYS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

export async function termdKeys(c: Client, n: number, pipelined: boolean): Promise<number[]> {
  const info = await c.call("session.create", { command: ["cat"], rows: 24, cols: 80 });
  try {
    // cat's tty echoes each key. Ctrl+U every 60 keys keeps the canonical line short.
    let hash = (await c.call("session.wait", { session: info.id, settle_ms: 50 })).screen.hash;
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      if (i > 0 && i % 60 === 0) {
        await c.call("session.input", { session: info.id, keys: ["Ctrl+U"] });
        hash = (await c.call("session.wait", { session: info.id, settle_ms: 20 })).screen.hash;
      }
      const ch = KEYS[i % KEYS.length]!;
      const t0 = performance.now();
      let r: Awaited<ReturnType<typeof c.call<"session.wait">>>;
      if (pipelined) {
        const w = c.call("session.wait", { session: info.id, changed_from: hash, timeout_ms: 5000 });
        await c.call("session.input", { session: info.id, text: ch });
        r = await w;
      } else {
        await c.call("session.input", { session: info.id, text: ch });
        r = await c.call("session.wait", { session: info.id, changed_from: hash, timeout_ms: 5000 });
      }
      times.push(performance.now() - t0);
      if (r.outcome !== "changed") throw new Error(`termd key ${i}: ${r.outcome}`);
      const row = r.screen.lines[r.screen.cursor.row] ?? "";
      if (!row.slice(0, r.screen.cursor.col).endsWith(ch))
        throw new Error(`termd key ${i}: screen shows ${JSON.stringify(row)}, not ${ch}`);
      hash = r.screen.hash;
    }
    return times;
  } finally {
    await c.call("session.remove", { session: info.id, force: true }).catch(() => {});
  }
}

/**
 * termd the way tmux's control mode is measured: a client subscribed to the session's output sends
 * the key and waits for the output event that carries its echo (not for the screen).
 */
export async function termdStreamKeys(c: Client, n: number): Promise<number[]> {
  const info = await c.call("session.create", { command: ["cat"], rows: 24, cols: 80 });
  let echoed: ((text: string) => void) | null = null;
  const sub = await c.subscribe({ session: info.id, events: ["output"] }, (e) => {
    if (e.type === "output") echoed?.(Buffer.from(String(e.data.base64), "base64").toString("latin1"));
  });
  const echo = (pred: (text: string) => boolean) => {
    const { promise, resolve, reject } = Promise.withResolvers<void>();
    const timer = setTimeout(() => reject(new Error("termd: no echo within 5 s")), 5000);
    echoed = (text) => {
      if (!pred(text)) return;
      clearTimeout(timer);
      echoed = null;
      resolve();
    };
    return promise;
  };
  try {
    await c.call("session.wait", { session: info.id, settle_ms: 50 });
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      if (i > 0 && i % 60 === 0) {
        const erased = echo((t) => t.includes("\b") || t.includes("^U") || t.includes("\x1b"));
        await c.call("session.input", { session: info.id, keys: ["Ctrl+U"] });
        await erased;
      }
      const ch = KEYS[i % KEYS.length]!;
      const t0 = performance.now();
      const shown = echo((t) => t.includes(ch));
      const sent = c.call("session.input", { session: info.id, text: ch });
      await shown;
      times.push(performance.now() - t0);
      await sent;
    }
    return times;
  } finally {
    await sub.unsubscribe().catch(() => {});
    await c.call("session.remove", { session: info.id, force: true }).catch(() => {});
  }
}

/** The way scripts drive tmux: spawn send-keys, then spawn capture-pane until the echo shows. */
async function tmuxKeysSpawned(n: number): Promise<number[]> {
  const t = new Tmux();
  try {
    t.ok("new-session", "-d", "-s", "keys", "-x", "80", "-y", "24", "cat");
    await until("tmux cat to start", 5000, () =>
      t.ok("display-message", "-p", "-t", "keys", "#{pane_current_command}").trim() === "cat" ? true : undefined,
    );
    let typed = "";
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      if (i > 0 && i % 60 === 0) {
        t.ok("send-keys", "-t", "keys", "C-u");
        typed = "";
        await until("tmux to clear the line", 5000, () => (t.ok("capture-pane", "-p", "-t", "keys").trim() === "" ? true : undefined));
      }
      const ch = KEYS[i % KEYS.length]!;
      typed += ch;
      const t0 = performance.now();
      t.ok("send-keys", "-t", "keys", "-l", ch);
      await until("tmux echo", 5000, () => (t.ok("capture-pane", "-p", "-t", "keys").includes(typed) ? true : undefined), 0);
      times.push(performance.now() - t0);
    }
    return times;
  } finally {
    t.kill();
  }
}

/** tmux at its best: one control-mode client, send-keys in, %output notification back. */
async function tmuxKeysControl(n: number): Promise<number[]> {
  const t = new Tmux();
  try {
    await tmuxCat(t, "keys");
    return await controlKeys(t, "keys", n);
  } finally {
    t.kill();
  }
}

/** A session `name` running `cat`, once cat runs. */
export async function tmuxCat(t: Tmux, name: string): Promise<void> {
  t.ok("new-session", "-d", "-s", name, "-x", "80", "-y", "24", "cat");
  await until("tmux cat to start", 5000, () =>
    t.ok("display-message", "-p", "-t", name, "#{pane_current_command}").trim() === "cat" ? true : undefined,
  );
}

/** Key round trips into the `cat` of session `target` through a control-mode client attached to it. */
export async function controlKeys(t: Tmux, target: string, n: number): Promise<number[]> {
  // Only this pane's %output counts: another pane's output must never pass for the echo.
  const pane = t.ok("display-message", "-p", "-t", target, "#{pane_id}").trim();
  const proc = Bun.spawn(["tmux", "-L", t.name, "-C", "attach-session", "-t", target], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "ignore",
    env: childEnv(),
  });
  try {
    const reader = proc.stdout.getReader();
    const dec = new TextDecoder();
    let buf = "";
    const nextLine = async (): Promise<string> => {
      for (;;) {
        const nl = buf.indexOf("\n");
        if (nl >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          return line;
        }
        const { value, done } = await reader.read();
        if (done) throw new Error("tmux control client closed");
        buf += dec.decode(value, { stream: true });
      }
    };
    // 5 s, as termd's waits: a lost line fails the measurement instead of hanging the run.
    const waitLine = async (what: string, pred: (line: string) => boolean) => {
      const deadline = performance.now() + 5000;
      for (;;) {
        const late = Bun.sleep(Math.max(0, deadline - performance.now())).then(() => undefined);
        const line = await Promise.race([nextLine(), late]);
        if (line === undefined) throw new Error(`tmux control mode: no ${what} from ${target} within 5 s`);
        if (pred(line)) return;
      }
    };
    const prefix = `%output ${pane} `;
    const waitOutput = (pred: (data: string) => boolean) => waitLine("echo", (l) => l.startsWith(prefix) && pred(l.slice(prefix.length)));
    // Keys sent before the attach completes can lose their %output (tmux 3.3a; now and then the
    // echo even lands inside the %session-changed line): start once attached.
    await waitLine("%session-changed", (l) => l.startsWith("%session-changed "));
    const send = (cmd: string) => {
      proc.stdin.write(cmd + "\n");
      proc.stdin.flush();
    };
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      if (i > 0 && i % 60 === 0) {
        send(`send-keys -t ${target} C-u`);
        await waitOutput((d) => d.includes("\\010") || d.includes("\\033") || d.includes("^U"));
      }
      const ch = KEYS[i % KEYS.length]!;
      const t0 = performance.now();
      send(`send-keys -t ${target} -l ${ch}`);
      await waitOutput((d) => d.includes(ch));
      times.push(performance.now() - t0);
    }
    return times;
  } finally {
    proc.kill();
  }
}

/** 2. Key round trip: termd pipelined and sequential, tmux spawned and in control mode. */
export async function reportKeys(o: Options, c: Client, verdicts: string[][]): Promise<void> {
  const pipelined = await termdKeys(c, o.keys, true);
  const sequential = await termdKeys(c, o.keys, false);
  const stream = await termdStreamKeys(c, o.keys);
  /** tmux's control mode's p50, the anchor of the key echo's target (within 0.05 ms of it). */
  let controlP50: number | null = null;
  const rows: string[][] = [["", "p50 ms", "p99 ms", "n"]];
  rows.push([
    "termd: input ‖ wait(changed), pipelined",
    f2(percentile(pipelined, 0.5)),
    f2(percentile(pipelined, 0.99)),
    String(pipelined.length),
  ]);
  rows.push([
    "termd: input, then wait(changed)",
    f2(percentile(sequential, 0.5)),
    f2(percentile(sequential, 0.99)),
    String(sequential.length),
  ]);
  rows.push([
    "termd: subscribed, input → output event (as tmux -C)",
    f2(percentile(stream, 0.5)),
    f2(percentile(stream, 0.99)),
    String(stream.length),
  ]);
  if (o.tmux) {
    const spawned = await tmuxKeysSpawned(o.tmuxKeys);
    rows.push([
      "tmux: spawned send-keys + capture-pane",
      f2(percentile(spawned, 0.5)),
      f2(percentile(spawned, 0.99)),
      String(spawned.length),
    ]);
    try {
      const control = await tmuxKeysControl(o.keys);
      controlP50 = percentile(control, 0.5);
      rows.push([
        "tmux: control mode (-C) send-keys → %output",
        f2(percentile(control, 0.5)),
        f2(percentile(control, 0.99)),
        String(control.length),
      ]);
    } catch (err) {
      rows.push(["tmux: control mode (-C)", "n/a", "n/a", (err as Error).message.slice(0, 40)]);
    }
  }
  console.log(`2. Key round trip: one character into \`cat\` until the screen shows the tty's echo (lower is better)`);
  console.log(table(rows) + "\n");
  // Judged on the slower of the two ways a client can do it.
  const p50 = Math.max(percentile(pipelined, 0.5), percentile(sequential, 0.5));
  verdicts.push(["key round trip p50 < 0.5 ms", `${f2(p50)} ms`, verdict(p50 < 0.5)]);
  // On the path tmux's control mode is measured on, against its figure in the same run.
  const echo = percentile(stream, 0.5);
  if (controlP50 !== null)
    verdicts.push([
      "key echo p50 as an output event ≤ tmux -C's + 0.05 ms",
      `${f2(echo)} vs ${f2(controlP50)} ms`,
      verdict(echo <= controlP50 + 0.05),
    ]);
}
