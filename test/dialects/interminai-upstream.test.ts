// Scenarios of interminai's own test suite (its tests/*.rs, which drive the interminai binary as
// a user's script does) that interminai.test.ts does not already cover: the CSI sequences and
// pending-wrap cases it prints and reads back with `output`, the terminal's answers to DSR and DA,
// vim scrolling and editing, a foreground `start` read to EOF, five clients at once, and the
// request shapes of the client of interminai's Python edition. interminai's suite runs under both
// emulators, and so do the screen scenarios here. Sessions are made natively where `start` is not
// what a scenario checks, and only dist/interminai runs: interminai.test.ts covers `start` and the
// source.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DIST_BIN, ROOT, sharedDaemon } from "../harness.ts";
import { ask, foreground, ia, nativeSession, seen, startSession } from "./interminai-cli.ts";

const BIN = [join(ROOT, "dist/interminai")];
setDefaultTimeout(30_000);

/** One daemon for the file: each test has sessions of its own in it. */
const shared = sharedDaemon({ bin: DIST_BIN });

/** The screen as `output` prints it: every row, trailing blanks trimmed, each ending in \n. */
const screenOf = (rows: string[]) => rows.map((r) => r + "\n").join("");

describe.each(["xterm", "custom"])("interminai's screen scenarios (--emulator %s)", (emulator) => {
  /** interminai's `start --emulator custom` runs the program with TERM=ansi. */
  const term = emulator === "custom" ? "ansi" : "xterm-256color";

  /** A session running `printf FORMAT` (interminai's tests print their sequences so), once `last` shows. */
  async function printed(size: string, format: string, last: string | RegExp) {
    const [cols, rows] = size.split("x").map(Number);
    const s = await nativeSession(shared.d, ["bash", "-c", `printf '${format}'; sleep 30`], { rows, cols, term });
    await seen(s.c, s.id, last);
    return {
      /** `output --no-color` with `args`; interminai's tests read the screen with `--from 1`. */
      output: async (...args: string[]) =>
        (await ia(shared.d, BIN, ["output", "--socket", s.socket, "--no-color", ...(args.length > 0 ? args : ["--from", "1"])])).stdout,
    };
  }

  test("CSI sequences move, erase, insert, delete, tab, repeat and scroll as interminai's tests expect", async () => {
    // One row each, as interminai's csi_test.rs prints them on a fresh screen.
    const rows: [string, string][] = [
      [String.raw`\e[10GX`, "         X"], // CHA
      [String.raw`ABCDEFGH\e[5G\e[1K`, "     FGH"], // EL 1: to the start of the line, the cursor's cell included
      [String.raw`ABCDEFGH\e[3G\e[3X`, "AB   FGH"], // ECH
      [String.raw`ABCDEFGH\e[3G\e[2P`, "ABEFGH"], // DCH
      [String.raw`ABCDEF\e[3G\e[2@`, "AB  CDEF"], // ICH
      [String.raw`\e[3G\e[IX`, `${" ".repeat(8)}X`], // CHT: column index 2 to the stop at 8
      [String.raw`\e[1G\e[2IX`, `${" ".repeat(16)}X`], // CHT 2
      [String.raw`\e[20G\e[ZX`, `${" ".repeat(16)}X`], // CBT: index 19 back to 16
      [String.raw`A\e[5b`, "AAAAAA"], // REP
      [String.raw`X\e[1m\e[3b\e[0m`, "XXXX"], // REP: an SGR in between changes nothing
      ["日本語 ├── test", "日本語 ├── test"],
    ];
    const format = rows.map(([seq], i) => String.raw`\e[${i + 1}H${seq}`).join("") + String.raw`\e[12Hdrawn`;
    const lines = await printed("40x12", format, "drawn");
    expect(await lines.output()).toBe(screenOf([...rows.map(([, want]) => want), "drawn"]));

    // Whole-screen ones: SU pushes into the scrollback, SD inserts blank lines, VPA keeps the column.
    const scrolled = await printed("40x10", String.raw`LINE1\nLINE2\nLINE3\e[2S\e[5HTOP\e[2T\e[1G\e[9dY`, /^Y$/);
    expect(await scrolled.output()).toBe(screenOf(["", "", "LINE3", "", "", "", "TOP", "", "Y", ""]));
    expect(await scrolled.output("--from", "-2", "--to", "0")).toBe("LINE1\nLINE2\n");
  });

  test("a full line leaves the cursor on its last column until CR, LF, BS or a cursor move", async () => {
    // delayed_wrap_test.rs's cases, each from its own row of one 10-column screen.
    const format = [
      String.raw`\e[1HABCDEFGHIJ\rX`,
      String.raw`\e[3HABCDEFGHIJ\e[1A\e[1GX`,
      String.raw`\e[4HABCDEFGHIJ\nY`,
      String.raw`\e[6HAAAAAAAAAA\nBBBBBBBBBB\n\e[2A\e[2K\e[1GLINE1\e[1B\e[2K\e[1GLINE2`,
    ].join("");
    const wraps = await printed("10x9", format, "LINE2");
    expect(await wraps.output("--cursor", "print")).toBe(
      "Cursor: row 7, col 6\n" + screenOf(["XBCDEFGHIJ", "X", "ABCDEFGHIJ", "ABCDEFGHIJ", "Y", "LINE1", "LINE2", "", ""]),
    );
    // A spinner's redraw: the full line, then up, erase, rewrite; it stays on row 1.
    const spinner = await printed("80x5", String.raw`${"X".repeat(80)}\e[1A\e[2K\e[1GUpdated`, "Updated");
    expect(await spinner.output("--cursor", "print")).toBe("Cursor: row 1, col 8\n" + screenOf(["Updated", "", "", "", ""]));
  });

  test("a program's DSR and DA queries are answered", async () => {
    // cursor_test.rs's queries, each read with bash's `read -d`; the reply's ESC is cut off to print it.
    const script = [
      "stty -echo",
      String.raw`printf '\e[6n'; read -rs -t 5 -d R a`,
      String.raw`printf '\e[5n'; read -rs -t 5 -d n b`,
      String.raw`printf '\e[c'; read -rs -t 5 -d c c`,
      'printf "cpr=%s dsr=%s da=%s\\n" "${a#?}" "${b#?}" "${c#?}"',
      "sleep 30",
    ].join("; ");
    const s = await nativeSession(shared.d, ["bash", "-c", script], { term });
    await seen(s.c, s.id, "cpr=");
    const first = (await ia(shared.d, BIN, ["output", "--socket", s.socket])).stdout.split("\n")[0];
    expect(first).toBe("cpr=[1;1 dsr=[0 da=[?1;2");
  });
});

test("vim scrolls with G and Ctrl-F, drops a deleted line at once, and saves edits made all over the file", async () => {
  const dir = mkdtempSync(join(tmpdir(), "termd-interminai-upstream-"));
  try {
    const file = join(dir, "lines.txt");
    writeFileSync(file, Array.from({ length: 30 }, (_, i) => `Line ${String(i + 1).padStart(2, "0")}\n`).join(""));
    const { c, id, socket } = await startSession(shared.d, BIN, ["--size", "80x10", "--", "vim", "--clean", file]);
    const keys = (text: string) => c.call("session.input", { session: id, text });
    const screen = async () => (await ia(shared.d, BIN, ["output", "--socket", socket, "--no-color"])).stdout;
    const line1 = async (how: "--contains" | "--not-contains", text: string) =>
      expect((await ia(shared.d, BIN, ["wait", "--socket", socket, "--line", "1", how, text])).stdout).toMatch(
        /^Condition (already )?met on line 1\n$/,
      );
    await seen(c, id, "Line 01");
    expect(await screen()).not.toContain("Line 25");

    await keys("G"); // scroll_test.rs: the end of the file, the start scrolled off
    await seen(c, id, "Line 30");
    const end = await screen();
    expect(end).toContain("Line 25");
    expect(end).not.toMatch(/Line 0[12]/);
    await keys("gg");
    await line1("--contains", "Line 01");
    await keys("\x06"); // Ctrl-F: a page down
    await line1("--not-contains", "Line 01");
    expect(await screen()).toMatch(/Line 1\d/);

    await keys("gg");
    await line1("--contains", "Line 01");
    await keys("dd"); // comprehensive_vim_test.rs: the line goes from the screen at once
    await line1("--contains", "Line 02");
    expect(await screen()).not.toContain("Line 01");

    // Each edit shows before the next is typed.
    const edits: [string, string | RegExp][] = [
      ["A [MODIFIED]\x1b", "Line 02 [MODIFIED]"],
      ["jI>>> \x1b", ">>> Line 03"],
      ["oLine 03.5\x1b", "Line 03.5"],
      ["j0wcwFOURTH\x1b", "Line FOURTH"],
      [":w\n", /written/],
    ];
    for (const [typed, shown] of edits) {
      await keys(typed);
      await seen(c, id, shown);
    }
    const saved = readFileSync(file, "utf8").split("\n");
    expect(saved.slice(0, 5)).toEqual(["Line 02 [MODIFIED]", ">>> Line 03", "Line 03.5", "Line FOURTH", "Line 05"]);
    expect(saved).toHaveLength(31); // 30 lines, each ending in \n: one deleted, one added
    await keys(":q\n");
    expect(await ia(shared.d, BIN, ["wait", "--socket", socket, "--quiet"])).toEqual({ code: 0, stdout: "0\n", stderr: "" });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a foreground start read to its end exits 0 after stop, and nothing it started keeps its output open", async () => {
  const socket = join(shared.d.dir, "fg.sock");
  // daemon_test.rs runs it with output(): stdout and stderr read until EOF.
  await using proc = foreground(shared.d, BIN, ["--socket", socket, "--", "bash", "-c", "echo ready; sleep 0.2"]);
  const stderr = new Response(proc.stderr).text();
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let stdout = "";
  const more = async () => {
    const { value, done } = await reader.read();
    if (value) stdout += decoder.decode(value, { stream: true });
    return !done;
  };
  while (stdout.split("\n").length <= 3 && (await more()));
  expect((await ia(shared.d, BIN, ["output", "--socket", socket])).stdout).toStartWith("ready\n");
  expect((await ia(shared.d, BIN, ["wait", "--socket", socket, "--quiet"])).stdout).toBe("0\n");
  expect((await ia(shared.d, BIN, ["stop", "--socket", socket])).code).toBe(0);
  while (await more());
  expect(stdout).toBe(`Socket: ${socket}\nPID: ${proc.pid}\nAuto-generated: false\n`);
  expect(await stderr).toBe("");
  expect(await proc.exited).toBe(0);
});

test("five output clients at once, while the program prints, all get the screen", async () => {
  const script = "i=0; while :; do echo Test $i; i=$((i+1)); sleep 0.05; done";
  const { c, id, socket } = await nativeSession(shared.d, ["bash", "-c", script]);
  await seen(c, id, "Test 1");
  const results = await Promise.all(Array.from({ length: 5 }, () => ia(shared.d, BIN, ["output", "--socket", socket])));
  for (const r of results) expect(r).toMatchObject({ code: 0, stdout: expect.stringContaining("Test "), stderr: "" });
  expect((await ia(shared.d, BIN, ["status", "--socket", socket])).stdout).toStartWith("Running: true\n");
});

test("the Python edition's client, which nests WAIT's, KILL's, RESIZE's and DEBUG's fields in data, is understood", async () => {
  const { socket } = await nativeSession(shared.d, ["cat"]);
  // The requests exactly as interminai.py's client sends them.
  expect((await ask(socket, '{"type":"OUTPUT","data":{"format":"ascii"}}')).data.size).toEqual({ rows: 10, cols: 40 });
  await ask(socket, '{"type":"STATUS","activity":true}'); // read, so the flag starts clear
  const waiting = ask(socket, '{"type":"WAIT","data":{"activity":true}}');
  expect(await ask(socket, '{"type":"INPUT","data":"x\\n"}')).toEqual({ status: "ok", data: {} });
  expect(await waiting).toEqual({ status: "ok", data: { activity: true, exited: false } });
  expect(await ask(socket, '{"type":"RESIZE","data":{"cols":30,"rows":8}}')).toEqual({ status: "ok", data: { cols: 30, rows: 8 } });
  expect((await ask(socket, '{"type":"DEBUG","data":{"clear":true}}')).data.termios.mode).toBe("cooked");
  expect(await ask(socket, '{"type":"KILL","data":{"signal":"SIGINT"}}')).toEqual({ status: "ok", data: { signal_sent: "SIGINT" } });
  expect(await ask(socket, '{"type":"WAIT","data":{"activity":false}}')).toEqual({ status: "ok", data: { exit_code: 130 } });
});
