// `interminai debug`: the escape sequences the emulator did not understand, and the PTY's
// termios, in interminai's layout; --clear empties the log after reporting.
import { SOCKET, type Subcommand } from "./args.ts";
import { call } from "./request.ts";
import { writeOut } from "../closed-stdout.ts";

interface Termios {
  error?: string;
  mode?: string;
  flags?: string[];
  hex?: Record<string, string>;
  c_cc?: Record<string, string>;
}

function termiosLines(t: Termios): string[] {
  if (typeof t.error === "string") return [`Termios: ${t.error}`];
  const lines = ["Termios:", `  Mode: ${t.mode ?? "?"}`];
  if (t.flags && t.flags.length > 0) lines.push(`  Flags: ${t.flags.join(" ")}`);
  if (t.hex) {
    const h = (k: string) => t.hex![k] ?? "?";
    lines.push(`  Hex: iflag=${h("iflag")} oflag=${h("oflag")} lflag=${h("lflag")} cflag=${h("cflag")}`);
  }
  if (t.c_cc) {
    const c = (k: string) => t.c_cc![k] ?? "?";
    lines.push(
      `  c_cc: VINTR=${c("VINTR")} VEOF=${c("VEOF")} VERASE=${c("VERASE")} VKILL=${c("VKILL")} VSUSP=${c("VSUSP")} VQUIT=${c("VQUIT")}`,
    );
  }
  return lines;
}

export const debug: Subcommand = {
  name: "debug",
  about: "Show unhandled escape sequences (for debugging)",
  opts: [SOCKET, { long: "clear", help: "Clear the buffer after reading" }],
  async run(a) {
    const data = await call(a.values.get("socket")!, { type: "DEBUG", clear: a.flags.has("clear") });
    const lines: string[] = [];
    const unhandled = Array.isArray(data.unhandled) ? (data.unhandled as { sequence?: string; raw_hex?: string }[]) : null;
    if (unhandled) {
      if (unhandled.length === 0) lines.push("No unhandled escape sequences");
      else lines.push("Unhandled escape sequences:", ...unhandled.map((e) => `  ${e.sequence ?? "?"} (${e.raw_hex ?? "?"})`));
    }
    const dropped = typeof data.dropped === "number" ? data.dropped : 0;
    if (dropped > 0) lines.push(`Dropped: ${dropped} (buffer overflow)`);
    if (typeof data.termios === "object" && data.termios !== null) lines.push(...termiosLines(data.termios as Termios));
    await writeOut(lines.map((l) => l + "\n").join(""));
    return 0;
  },
};
