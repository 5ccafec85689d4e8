// A PTY's termios settings in the words of interminai's DEBUG (docs/dialects.md): cooked or raw,
// the flags that are on by name, the four flag words in hex, and the control characters in ^X
// form. Bun.Terminal reads the flag words; it does not expose c_cc, so those come from `stty -g`
// on the child's terminal (found through the process table; `stty -g` prints them in this form on
// Linux only, so elsewhere c_cc stays empty).
import { processes } from "../platform/index.ts";
import type { Termios } from "../protocol/schemas.ts";

export interface TermiosFlags {
  iflag: number;
  oflag: number;
  lflag: number;
  cflag: number;
  /** The control characters by name, where the terminal's owner could read them. */
  cc?: Record<string, string>;
}

type Word = "iflag" | "oflag" | "lflag" | "cflag";

/**
 * Each flag word's flags by name, with the flag's bit on Linux (<asm-generic/termbits.h>) and on
 * macOS and the BSDs (<sys/termios.h>); null where that platform has no such flag.
 */
const FLAGS: Record<Word, [name: string, linux: number | null, bsd: number | null][]> = {
  iflag: [
    ["IGNBRK", 0x1, 0x1],
    ["BRKINT", 0x2, 0x2],
    ["IGNPAR", 0x4, 0x4],
    ["PARMRK", 0x8, 0x8],
    ["INPCK", 0x10, 0x10],
    ["ISTRIP", 0x20, 0x20],
    ["INLCR", 0x40, 0x40],
    ["IGNCR", 0x80, 0x80],
    ["ICRNL", 0x100, 0x100],
    ["IUCLC", 0x200, null],
    ["IXON", 0x400, 0x200],
    ["IXANY", 0x800, 0x800],
    ["IXOFF", 0x1000, 0x400],
    ["IMAXBEL", 0x2000, 0x2000],
    ["IUTF8", 0x4000, 0x4000],
  ],
  oflag: [
    ["OPOST", 0x1, 0x1],
    ["OLCUC", 0x2, null],
    ["ONLCR", 0x4, 0x2],
    ["OXTABS", null, 0x4],
    ["ONOEOT", null, 0x8],
    ["OCRNL", 0x8, 0x10],
    ["ONOCR", 0x10, 0x20],
    ["ONLRET", 0x20, 0x40],
    ["OFILL", 0x40, null],
    ["OFDEL", 0x80, null],
  ],
  lflag: [
    ["ISIG", 0x1, 0x80],
    ["ICANON", 0x2, 0x100],
    ["XCASE", 0x4, null],
    ["ECHO", 0x8, 0x8],
    ["ECHOE", 0x10, 0x2],
    ["ECHOK", 0x20, 0x4],
    ["ECHONL", 0x40, 0x10],
    ["NOFLSH", 0x80, 0x80000000],
    ["TOSTOP", 0x100, 0x400000],
    ["ECHOCTL", 0x200, 0x40],
    ["ECHOPRT", 0x400, 0x20],
    ["ECHOKE", 0x800, 0x1],
    ["FLUSHO", 0x1000, 0x800000],
    ["PENDIN", 0x4000, 0x20000000],
    ["ALTWERASE", null, 0x200],
    ["IEXTEN", 0x8000, 0x400],
    ["EXTPROC", 0x10000, 0x800],
    ["NOKERNINFO", null, 0x2000000],
  ],
  cflag: [
    ["CSTOPB", 0x40, 0x400],
    ["CREAD", 0x80, 0x800],
    ["PARENB", 0x100, 0x1000],
    ["PARODD", 0x200, 0x2000],
    ["HUPCL", 0x400, 0x4000],
    ["CLOCAL", 0x800, 0x8000],
    ["CRTSCTS", 0x80000000, null],
  ],
};
/** CSIZE (CS5 to CS8) in cflag, on Linux and on the BSDs. */
const CSIZE = { linux: { mask: 0x30, shift: 4 }, bsd: { mask: 0x300, shift: 8 } };

/** c_cc indexes on Linux, in `stty -g` order after the four flag words. */
const LINUX_CC = [
  "VINTR",
  "VQUIT",
  "VERASE",
  "VKILL",
  "VEOF",
  "VTIME",
  "VMIN",
  "VSWTC",
  "VSTART",
  "VSTOP",
  "VSUSP",
  "VEOL",
  "VREPRINT",
  "VDISCARD",
  "VWERASE",
  "VLNEXT",
  "VEOL2",
];

const hex = (n: number) => "0x" + (n >>> 0).toString(16).padStart(4, "0");

/** A control character as stty writes it: ^C, ^?, ^\, <undef> for a disabled one. */
export function caret(code: number): string {
  if (code === 0) return "<undef>";
  if (code === 0x7f) return "^?";
  if (code < 0x20) return "^" + String.fromCharCode(code + 0x40);
  return String.fromCharCode(code);
}

export function describeTermios(f: TermiosFlags, cc: Record<string, string>, platform = process.platform): Termios {
  const column: 1 | 2 = platform === "linux" ? 1 : 2;
  const csize = platform === "linux" ? CSIZE.linux : CSIZE.bsd;
  const flags: string[] = [];
  for (const word of ["iflag", "oflag", "lflag", "cflag"] as const) {
    for (const row of FLAGS[word]) {
      const bit = row[column];
      if (bit !== null && (f[word] & bit) >>> 0 === bit >>> 0) flags.push(row[0]);
    }
    if (word === "cflag") flags.push(`CS${5 + ((f.cflag & csize.mask) >> csize.shift)}`);
  }
  const icanon = FLAGS.lflag.find(([n]) => n === "ICANON")![column]!;
  return {
    mode: f.lflag & icanon ? "cooked" : "raw",
    flags,
    hex: { iflag: hex(f.iflag), oflag: hex(f.oflag), lflag: hex(f.lflag), cflag: hex(f.cflag) },
    c_cc: cc,
  };
}

/** Linux's c_cc, slot by slot, as named ^X forms (VMIN and VTIME as numbers). */
export function controlChars(cc: number[]): Record<string, string> {
  const out: Record<string, string> = {};
  LINUX_CC.forEach((name, i) => {
    const v = cc[i] ?? 0;
    out[name] = name === "VMIN" || name === "VTIME" ? String(v) : caret(v);
  });
  return out;
}

/** Parses Linux `stty -g` output ("iflag:oflag:cflag:lflag:cc0:cc1:…", hex) into named ^X forms. */
export function parseSttyG(text: string): Record<string, string> {
  const parts = text.trim().split(":");
  if (parts.length < 4 + LINUX_CC.length || !parts.every((p) => /^[0-9a-f]+$/i.test(p))) return {};
  return controlChars(parts.slice(4).map((p) => parseInt(p, 16)));
}

/** The control characters of the child's terminal, or {} when they cannot be read. */
export async function readControlChars(pid: number | null): Promise<Record<string, string>> {
  if (pid === null || process.platform !== "linux") return {};
  const tty = processes.terminalOf(pid);
  if (!tty) return {};
  try {
    // stty opens the device non-blocking and only reads its settings; timeout in case it cannot.
    const p = Bun.spawn(["stty", "-g", "-F", tty], { stdin: "ignore", stdout: "pipe", stderr: "ignore", timeout: 2000 });
    const [text, code] = await Promise.all([new Response(p.stdout).text(), p.exited]);
    return code === 0 ? parseSttyG(text) : {};
  } catch {
    return {};
  }
}
