import { describe, expect, test } from "bun:test";
import { caret, describeTermios, parseSttyG } from "./termios.ts";

describe("termios", () => {
  test("a fresh Linux PTY reads as cooked with its usual flags", () => {
    const t = describeTermios({ iflag: 0x6d02, oflag: 0x5, lflag: 0x8a3b, cflag: 0x4bf }, {}, "linux");
    expect(t.mode).toBe("cooked");
    expect(t.flags).toEqual([
      "BRKINT",
      "ICRNL",
      "IXON",
      "IXANY",
      "IMAXBEL",
      "IUTF8",
      "OPOST",
      "ONLCR",
      "ISIG",
      "ICANON",
      "ECHO",
      "ECHOE",
      "ECHOK",
      "ECHOCTL",
      "ECHOKE",
      "IEXTEN",
      "CREAD",
      "HUPCL",
      "CS8",
    ]);
    expect(t.hex).toEqual({ iflag: "0x6d02", oflag: "0x0005", lflag: "0x8a3b", cflag: "0x04bf" });
  });

  test("a macOS PTY's flag words, other bits for the same flags, read as the Linux ones do and in the same order", () => {
    const t = describeTermios({ iflag: 0x6b02, oflag: 0x3, lflag: 0x5cb, cflag: 0x4b00 }, {}, "darwin");
    expect(t.mode).toBe("cooked");
    const linux = describeTermios({ iflag: 0x6d02, oflag: 0x5, lflag: 0x8a1b, cflag: 0x4b0 }, {}, "linux");
    expect(t.flags).toEqual(linux.flags);
    expect(t.flags).toEqual(
      "BRKINT ICRNL IXON IXANY IMAXBEL IUTF8 OPOST ONLCR ISIG ICANON ECHO ECHOE ECHOCTL ECHOKE IEXTEN CREAD HUPCL CS8".split(" "),
    );
  });

  test("after stty raw it reads as raw", () => {
    const t = describeTermios({ iflag: 0, oflag: 0x4, lflag: 0x8a30, cflag: 0x4bf }, {}, "linux");
    expect(t.mode).toBe("raw");
    expect(t.flags).not.toContain("ECHO");
    expect(t.flags).not.toContain("ISIG");
  });

  test("control characters are written as stty does", () => {
    expect([caret(3), caret(0x7f), caret(0x1c), caret(0), caret(0x61)]).toEqual(["^C", "^?", "^\\", "<undef>", "a"]);
  });

  test("stty -g output gives the named control characters", () => {
    const cc = parseSttyG("0:4:4bf:8a30:3:1c:7f:15:4:0:1:0:11:13:1a:0:12:f:17:16:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0\n");
    expect(cc).toMatchObject({
      VINTR: "^C",
      VQUIT: "^\\",
      VERASE: "^?",
      VKILL: "^U",
      VEOF: "^D",
      VSUSP: "^Z",
      VMIN: "1",
      VTIME: "0",
      VEOL: "<undef>",
    });
    expect(parseSttyG("gfmt1:cflag=4b00:iflag=6b02")).toEqual({});
  });
});
