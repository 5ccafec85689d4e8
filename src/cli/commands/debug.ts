import { bool } from "../args.ts";
import { cliCommand, EXIT } from "../command.ts";
import { printJson, table } from "../format.ts";
import type { DebugResult, Modes } from "../../protocol/schemas.ts";
import { sessionArg } from "./shared.ts";

/** The modes that differ from a plain terminal's, e.g. "alternate mouse=vt200 kitty_keyboard=1". */
function modesText(m: Modes): string {
  const on: string[] = [];
  for (const [k, v] of Object.entries(m)) {
    if (k === "cursor_visible") {
      if (!v) on.push("cursor_hidden");
    } else if (v === true) on.push(k);
    else if (typeof v !== "boolean" && v !== "none" && v !== 0) on.push(`${k}=${v}`);
  }
  return on.length > 0 ? on.join(" ") : "(none)";
}

function describe(r: DebugResult): string {
  const lines: string[] = [];
  const t = r.termios;
  if (t) {
    lines.push(`termios:  ${t.mode}  (iflag ${t.hex.iflag}, oflag ${t.hex.oflag}, lflag ${t.hex.lflag}, cflag ${t.hex.cflag})`);
    lines.push(`flags:    ${t.flags.join(" ")}`);
    const cc = Object.entries(t.c_cc).map(([k, v]) => `${k}=${v}`);
    lines.push(`c_cc:     ${cc.length > 0 ? cc.join(" ") : "(not readable here)"}`);
  } else lines.push("termios:  (the terminal is closed)");
  lines.push(`modes:    ${modesText(r.modes)}`);
  if (r.marks.length > 0) {
    lines.push(`marks:    ${r.marks.map((m) => (m.kind === "D" ? `D(${m.exit_code ?? "?"})` : m.kind)).join(" ")}`);
  }
  lines.push(`unhandled: ${r.unhandled.length}${r.dropped > 0 ? ` (${r.dropped} more dropped)` : ""}`);
  if (r.unhandled.length > 0) lines.push(table(r.unhandled.map((u) => [`  ${u.sequence}`, u.raw_hex])));
  return lines.join("\n");
}

export default cliCommand({
  name: "debug",
  summary: "show a session's unhandled escape sequences, termios and modes",
  args: "SESSION",
  json: true,
  help: [
    "Shows the escape sequences the program wrote that neither termd nor its terminal emulator",
    "implements (oldest first; the daemon keeps --debug-buffer of them), the PTY's termios",
    "(cooked or raw, flags, control characters) and the modes the program turned on.",
  ].join("\n"),
  flags: { clear: { kind: "boolean", help: "empty the sequence log after showing it" } },
  async run(a, ctx) {
    const r = await (await ctx.client()).call("session.debug", { session: sessionArg(a), clear: bool(a, "clear") });
    if (ctx.json) printJson(ctx, r);
    else ctx.out(describe(r));
    return EXIT.OK;
  },
});
