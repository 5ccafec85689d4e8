// 5. Isolation: a quiet session's key round trip while another session of the same server floods.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "../../src/client/index.ts";
import { startDaemon } from "./daemon.ts";
import type { Options } from "./flags.ts";
import { run, sh, writtenBytes } from "./helpers.ts";
import { controlKeys, termdKeys, termdStreamKeys, tmuxCat } from "./keys.ts";
import { NONE, spread, verdict } from "./report.ts";
import { Tmux } from "./tmux.ts";
import { MB, f1, f2, percentile, table } from "../common/measure.ts";

/** 79 columns, so `yes` writes 80-column lines. */
const FLOOD_LINE = "the quick brown fox jumps over the lazy dog 0123456789 a terminal flood of plain text".slice(0, 79);

/** How long a flood runs before measuring, so it is in full swing. */
const FLOOD_WARMUP_MS = 300;

// The colour-redraw flood: the whole 24x80 screen in random 256-colour SGR, frame after frame, as
// fast as the terminal takes it. argv: seconds (0: forever), then optionally a sentinel, which
// replaces the screen as the program's very last bytes, and a file where it then notes the time of
// that last write and how many bytes it wrote in all.
const REDRAW_PY = String.raw`import os, sys, time
ROWS, COLS = 24, 80
secs = float(sys.argv[1])
sentinel = sys.argv[2].encode() if len(sys.argv) > 2 else b""
stamp = sys.argv[3] if len(sys.argv) > 3 else ""
glyphs = b"#@%&*+=-:.oOxX"
cell = [b"\x1b[38;5;%dm%c" % (n, glyphs[n % len(glyphs)]) for n in range(256)]
moves = [b"\x1b[%d;1H" % (r + 1) for r in range(ROWS)]
out = sys.stdout.buffer
written = 0
end = time.monotonic() + secs if secs > 0 else float("inf")
while time.monotonic() < end:
    noise = os.urandom(ROWS * COLS)
    frame = b"".join(moves[r] + b"".join(map(cell.__getitem__, noise[r * COLS:(r + 1) * COLS])) for r in range(ROWS)) + b"\x1b[0m"
    out.write(frame)
    written += len(frame)
last = b"\x1b[0m\x1b[2J\x1b[H" + sentinel
out.write(last)
out.flush()
written += len(last)
if stamp:
    with open(stamp + ".tmp", "w") as f:
        f.write("%.6f %d" % (time.time(), written))
    os.replace(stamp + ".tmp", stamp)
`;

/** The redraw program's argv (without its own arguments). */
export function redrawProgram(dir: string): string[] {
  const script = join(dir, "redraw.py");
  writeFileSync(script, REDRAW_PY);
  // The interpreter itself, not a version manager's shim: the session's pid is then the flood's.
  const python = run(["python3", "-c", "import sys; print(sys.executable)"]).stdout.trim() || "python3";
  return [python, script];
}

interface Isolated {
  times: number[];
  /** What the flooding program wrote meanwhile, MB/s; NaN with no flood. */
  floodMbs: number;
}

/** Runs `measure` once the flood (pid) is in full swing; the flood's own write rate meanwhile. */
async function duringFlood(pid: number, measure: () => Promise<number[]>): Promise<Isolated> {
  await Bun.sleep(FLOOD_WARMUP_MS);
  const w0 = writtenBytes(pid);
  const t0 = performance.now();
  const times = await measure();
  return { times, floodMbs: (writtenBytes(pid) - w0) / MB / ((performance.now() - t0) / 1000) };
}

type Keys = (c: Client, n: number) => Promise<number[]>;
/** Until the screen shows the echo, and (tmux -C's way) until the output event carries it. */
const screenKeys: Keys = (c, n) => termdKeys(c, n, false);

/** Key round trips into a fresh `cat` session while `flood` runs in another session of the daemon. */
async function termdIsolated(c: Client, n: number, keys: Keys, flood?: string[]): Promise<Isolated> {
  if (!flood) return { times: await keys(c, n), floodMbs: NaN };
  const info = await c.call("session.create", { command: flood, rows: 24, cols: 80 });
  try {
    if (!info.pid) throw new Error(`termd: ${flood[0]} has no pid`);
    return await duringFlood(info.pid, () => keys(c, n));
  } finally {
    await c.call("session.remove", { session: info.id, force: true }).catch(() => {});
  }
}

/** The same in tmux: the control client is attached to the quiet session only. */
async function tmuxIsolated(t: Tmux, label: string, n: number, flood?: string[]): Promise<Isolated> {
  const quiet = `quiet${label}`;
  const loud = `flood${label}`;
  await tmuxCat(t, quiet);
  try {
    if (!flood) return { times: await controlKeys(t, quiet, n), floodMbs: NaN };
    // exec: the pane's pid is the flood's.
    t.ok("new-session", "-d", "-s", loud, "-x", "80", "-y", "24", `exec ${flood.map(sh).join(" ")}`);
    const pid = Number(t.ok("display-message", "-p", "-t", loud, "#{pane_pid}").trim());
    return await duringFlood(pid, () => controlKeys(t, quiet, n));
  } finally {
    t.cmd("kill-session", "-t", loud);
    t.cmd("kill-session", "-t", quiet);
  }
}

export async function reportIsolation(o: Options, dir: string, verdicts: string[][]): Promise<void> {
  const redraw = redrawProgram(dir);
  const phases: { label: string; short: string; flood?: string[] }[] = [
    { label: "no flood", short: "idle" },
    { label: "plain-text flood (`yes`, 80-column lines)", short: "text", flood: ["yes", FLOOD_LINE] },
    { label: "colour-redraw flood (24x80, random SGR)", short: "colour", flood: [...redraw, "0"] },
  ];
  const termd: Isolated[] = [];
  const stream: Isolated[] = [];
  const d = await startDaemon(dir, "isolation");
  try {
    // Warm-up: a fresh daemon's first requests pay for compiling its code, not what this compares.
    await termdKeys(d.client, 30, false);
    for (const p of phases) {
      termd.push(await termdIsolated(d.client, o.keys, screenKeys, p.flood));
      stream.push(await termdIsolated(d.client, o.keys, termdStreamKeys, p.flood));
      process.stderr.write(`  isolation: termd, ${p.short} done\n`);
    }
  } finally {
    await d.stop();
  }
  const tmux: Isolated[] = [];
  if (o.tmux) {
    const t = new Tmux();
    try {
      for (const [i, p] of phases.entries()) {
        tmux.push(await tmuxIsolated(t, String(i), o.keys, p.flood));
        process.stderr.write(`  isolation: tmux, ${p.short} done\n`);
      }
    } finally {
      t.kill();
    }
  }
  const rows: string[][] = [["", "termd: screen", "termd: output event", "tmux", "target"]];
  phases.forEach((p, i) => {
    const target = p.flood ? "p99 ≤ tmux's + 0.5 ms (aim < 2 ms)" : "p50 ≤ 0.1 ms";
    rows.push([p.label, spread(termd[i]!.times), spread(stream[i]!.times), tmux[i] ? spread(tmux[i]!.times) : NONE, target]);
    if (p.flood)
      rows.push([
        "  the flood's own write rate meanwhile (MB/s)",
        f1(termd[i]!.floodMbs),
        f1(stream[i]!.floodMbs),
        tmux[i] ? f1(tmux[i]!.floodMbs) : NONE,
        "",
      ]);
  });
  console.log(`5. Isolation: a quiet \`cat\` session's key round trip while another session of the same server floods`);
  console.log(`   (ms, p50 / p99 / max of ${o.keys} keys; termd: input, then wait(changed) until the screen shows it;`);
  console.log(`   and subscribed, input until the output event carries it, as tmux: control mode, send-keys → %output)`);
  console.log(table(rows));
  // A server that stops reading a flood makes the keys' figure meaningless: say so.
  phases.forEach((p, i) => {
    for (const [who, r] of [
      ["termd", termd[i]],
      ["termd (output event)", stream[i]],
      ["tmux", tmux[i]],
    ] as const) {
      if (p.flood && r && r.floodMbs < 1)
        console.log(
          `  ${who}: the ${p.short} flood hardly wrote meanwhile (${f2(r.floodMbs)} MB/s): it was held back, not measured against`,
        );
    }
  });
  console.log();
  const idle = percentile(termd[0]!.times, 0.5);
  verdicts.push(["isolation: idle key p50 ≤ 0.1 ms", `${f2(idle)} ms`, verdict(idle <= 0.1)]);
  phases.forEach((p, i) => {
    if (!p.flood) return;
    const p99 = percentile(termd[i]!.times, 0.99);
    // Like for like: the echo as an output event, as tmux's control mode reports it.
    const echo = percentile(stream[i]!.times, 0.99);
    if (tmux[i]) {
      const theirs = percentile(tmux[i]!.times, 0.99);
      verdicts.push([
        `isolation: echo p99 in a ${p.short} flood ≤ tmux's + 0.5 ms`,
        `${f2(echo)} vs ${f2(theirs)} ms`,
        verdict(echo <= theirs + 0.5),
      ]);
    }
    verdicts.push([`isolation: key p99 until the screen shows it, ${p.short} flood < 2 ms (aim)`, `${f2(p99)} ms`, verdict(p99 < 2)]);
  });
}
