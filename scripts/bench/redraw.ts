// 6. Redraw: a full-screen colour redraw flood, how far behind the screen falls.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { until } from "../concurrency.ts";
import { SCREEN_CURRENT_MS } from "../../src/session/pipeline.ts";
import { startDaemon } from "./daemon.ts";
import type { Options } from "./flags.ts";
import { sh, wallMs } from "./helpers.ts";
import { redrawProgram } from "./isolation.ts";
import { tmuxCat } from "./keys.ts";
import { NONE, verdict } from "./report.ts";
import { Tmux } from "./tmux.ts";
import { MB, f1, mb, rssBytes, rssPeak, table } from "../common/measure.ts";

/** Start waiting for the redraw's last line this long before it is due: a text wait costs a check per screen change. */
const LOOK_EARLY_MS = 2000;

interface Redraw {
  before: number;
  peak: number;
  /** RSS 1 s after the screen was current. */
  after: number;
  /** From the program's last write until the screen showed it. */
  lagMs: number;
  /** Output not yet on the screen when the program ended (bytes); NaN where unknown. */
  behind: number;
  /** What the program wrote. */
  bytes: number;
  notes: string[];
}

function sentinelText(what: string): string {
  return `TERMD-BENCH-${what}-${Math.random().toString(36).slice(2, 10)}`;
}

/** The redraw program's note: when it wrote its last byte (wall clock, ms) and how much it wrote. */
async function readStamp(stamp: string): Promise<{ last: number; bytes: number }> {
  const text = await until("the redraw program's stamp", 10_000, () => (existsSync(stamp) ? readFileSync(stamp, "utf8") : undefined), 5);
  const [time, bytes] = text.trim().split(" ");
  return { last: Number(time) * 1000, bytes: Number(bytes) };
}

async function termdRedraw(dir: string, redraw: string[], secs: number): Promise<Redraw> {
  const d = await startDaemon(dir, "redraw");
  try {
    const c = d.client;
    const pid = d.proc.pid;
    await Bun.sleep(500);
    const before = rssBytes(pid);
    const sampler = rssPeak(pid);
    const sentinel = sentinelText("REDRAW");
    const stamp = join(dir, "redraw-termd.stamp");
    const t0 = performance.now();
    const info = await c.call("session.create", { command: [...redraw, String(secs), sentinel, stamp], rows: 24, cols: 80 });
    await Bun.sleep(Math.max(0, secs * 1000 - LOOK_EARLY_MS - (performance.now() - t0)));
    const r = await c.call("session.wait", { session: info.id, text: sentinel, timeout_ms: LOOK_EARLY_MS + 120_000 });
    if (r.outcome === "timeout") throw new Error("termd: the redraw's last line never showed");
    let seen = wallMs();
    let screen = r.screen;
    if (r.outcome === "exited") {
      // The program ended before its last bytes were on the screen (a wait on an ended session
      // answers at once): poll until they are.
      screen = await until(
        "termd's screen to show the redraw's last line",
        120_000,
        async () => {
          const s = await c.call("session.screen", { session: info.id });
          return s.lines.some((l) => l.includes(sentinel)) ? s : undefined;
        },
        2,
      );
      seen = wallMs();
    }
    const peak = sampler.stop();
    await c.call("session.wait", { session: info.id, exit: true, timeout_ms: 10_000 });
    const end = await c.call("session.info", { session: info.id });
    const { last, bytes } = await readStamp(stamp);
    const notes: string[] = [];
    // The sentinel is the very last output, so the screen showing it must reflect every byte.
    if (screen.offset !== end.bytes_out) notes.push(`the screen's offset ${screen.offset} ≠ bytes_out ${end.bytes_out}`);
    if (end.bytes_out !== bytes) notes.push(`bytes_out ${end.bytes_out} ≠ the ${bytes} bytes the program wrote`);
    const behind = r.outcome === "exited" ? end.bytes_out - r.screen.offset : 0;
    await c.call("session.remove", { session: info.id, force: true });
    await Bun.sleep(1000);
    return { before, peak, after: rssBytes(pid), lagMs: seen - last, behind, bytes, notes };
  } finally {
    await d.stop();
  }
}

async function tmuxRedraw(dir: string, redraw: string[], secs: number): Promise<Redraw> {
  const t = new Tmux();
  try {
    await tmuxCat(t, "idle"); // the server, measured before the flood
    const pid = t.serverPid();
    await Bun.sleep(500);
    const before = rssBytes(pid);
    const sampler = rssPeak(pid);
    const sentinel = sentinelText("REDRAW");
    const stamp = join(dir, "redraw-tmux.stamp");
    const t0 = performance.now();
    // The shell stays after the program, so the pane and its screen stay too.
    t.ok(
      "new-session",
      "-d",
      "-s",
      "redraw",
      "-x",
      "80",
      "-y",
      "24",
      `${[...redraw, String(secs), sentinel, stamp].map(sh).join(" ")}; exec sleep 86400`,
    );
    await Bun.sleep(Math.max(0, secs * 1000 - LOOK_EARLY_MS - (performance.now() - t0)));
    const shows = () => (t.ok("capture-pane", "-p", "-t", "redraw").includes(sentinel) ? true : undefined);
    await until("tmux to show the redraw's last line", LOOK_EARLY_MS + 120_000, shows, 2);
    const seen = wallMs();
    const peak = sampler.stop();
    const { last, bytes } = await readStamp(stamp);
    t.cmd("kill-session", "-t", "redraw");
    await Bun.sleep(1000);
    return { before, peak, after: rssBytes(pid), lagMs: seen - last, behind: NaN, bytes, notes: [] };
  } finally {
    t.kill();
  }
}

export async function reportRedraw(o: Options, dir: string, verdicts: string[][]): Promise<void> {
  const redraw = redrawProgram(dir);
  const secs = o.redrawSeconds;
  const termd = await termdRedraw(dir, redraw, secs);
  const tmux = o.tmux ? await tmuxRedraw(dir, redraw, secs) : undefined;
  const both = (f: (r: Redraw) => string) => [f(termd), tmux ? f(tmux) : NONE];
  const rows: string[][] = [
    ["", "termd", "tmux", "target"],
    ["the program wrote, MB (MB/s)", ...both((r) => `${mb(r.bytes)} (${f1(r.bytes / MB / secs)})`), ""],
    ["RSS before, MB", ...both((r) => mb(r.before)), ""],
    ["peak RSS growth during the flood, MB", ...both((r) => mb(r.peak - r.before)), "< 100 MB"],
    ["RSS growth 1 s after it, MB", ...both((r) => mb(r.after - r.before)), ""],
    ["output not on the screen when the wait saw the exit, KB", ...both((r) => (Number.isNaN(r.behind) ? NONE : f1(r.behind / 1024))), ""],
    ["screen current after the program's last byte, ms", ...both((r) => f1(r.lagMs)), `≤ ${SCREEN_CURRENT_MS} ms`],
  ];
  console.log(`6. Redraw: the whole 24x80 screen in random 256-colour SGR for ${secs} s, as fast as the server takes it`);
  console.log(table(rows));
  for (const note of termd.notes) console.log(`  termd: ${note}`);
  if (tmux) console.log(`  (tmux's screen is polled with spawned capture-pane: its figure includes a few ms of spawning)`);
  console.log();
  const growth = termd.peak - termd.before;
  verdicts.push(["redraw: RSS growth < 100 MB", `${mb(growth)} MB`, verdict(growth < 100 * MB)]);
  verdicts.push([
    `redraw: screen current ≤ ${SCREEN_CURRENT_MS} ms after the last byte`,
    `${f1(termd.lagMs)} ms`,
    verdict(termd.lagMs <= SCREEN_CURRENT_MS && termd.notes.length === 0),
  ]);
}
