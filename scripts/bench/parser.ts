// 4. The VT parser alone: plain text and a recorded vim session.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "../../src/client/index.ts";
import { ROOT } from "../common/measure.ts";
import { verdict } from "./report.ts";
import { startDaemon } from "./daemon.ts";
import { f1, table } from "../common/measure.ts";
import { benchParser, plainText as vtPlainText } from "../../src/vt/bench.ts";

/** vim with syntax on paging through the sources at 50x160; returns the session's raw output. */
async function recordVim(c: Client, dir: string): Promise<Uint8Array> {
  const file = join(dir, "sources.ts");
  const sources = new Bun.Glob("src/**/*.ts").scanSync({ cwd: ROOT });
  await Bun.write(
    file,
    [...sources]
      .sort()
      .map((f) => readFileSync(join(ROOT, f), "utf8"))
      .join("\n"),
  );
  const name = `vim${process.pid}`;
  await c.call("session.create", {
    name,
    command: ["vim", "-u", "NONE", "-N", "-c", "syntax on", "-c", "set nowrap", file],
    rows: 50,
    cols: 160,
  });
  let screen = await c.call("session.wait", { session: name, text: "sources.ts" });
  for (let i = 0; i < 150; i++) {
    await c.call("session.input", { session: name, keys: ["PageDown"] });
    screen = await c.call("session.wait", { session: name, changed_from: screen.screen.hash, timeout_ms: 5000 });
  }
  await c.call("session.input", { session: name, text: ":qa!\r" });
  await c.call("session.wait", { session: name, exit: true });
  const parts: Uint8Array[] = [];
  for (let from = 0; ; ) {
    const r = await c.call("session.output", { session: name, from });
    if (r.to === from) break;
    parts.push(Buffer.from(r.base64, "base64"));
    from = r.to;
  }
  return Buffer.concat(parts);
}

function repeatTo(bytes: Uint8Array, size: number): Uint8Array {
  const out = new Uint8Array(Math.ceil(size / bytes.length) * bytes.length);
  for (let at = 0; at < out.length; at += bytes.length) out.set(bytes, at);
  return out;
}

/** 4. The VT parser alone, plain text and a recorded vim session. */
export async function reportParser(dir: string, verdicts: string[][]): Promise<void> {
  const d = await startDaemon(dir, "parser");
  let recorded: Uint8Array;
  try {
    recorded = await recordVim(d.client, dir);
  } finally {
    await d.stop();
  }
  const plainMbs = benchParser(vtPlainText(50 * 1000 * 1000), 3);
  const vim = repeatTo(recorded, 20 * 1000 * 1000);
  const vimMbs = benchParser(vim, 3);
  console.log(`4. VT parser, no-op performer (MB/s = 10^6 bytes/s, higher is better)`);
  console.log(
    table([
      ["", "MB/s", "target"],
      ["plain text, 50 MB", f1(plainMbs), "300"],
      [`vim with syntax on, recorded (${f1(recorded.length / 1e6)} MB, repeated to 20 MB)`, f1(vimMbs), "100"],
    ]) + "\n",
  );
  verdicts.push(["parser, plain text ≥ 300 MB/s", `${f1(plainMbs)} MB/s`, verdict(plainMbs >= 300)]);
  verdicts.push(["parser, vim stream ≥ 100 MB/s", `${f1(vimMbs)} MB/s`, verdict(vimMbs >= 100)]);
}
