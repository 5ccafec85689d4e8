// termd debug, run as a user runs it, against a daemon of this file's.
import { expect, test } from "bun:test";
import { sharedDaemon } from "../../../test/harness.ts";

const s = sharedDaemon();

test("debug shows termios, the modes turned on and the unhandled sequences; --clear empties their log", async () => {
  // Raw mode, the alternate screen, SGR mouse, and a sequence no terminal implements (CSI 5 z).
  const program = "stty raw -echo; printf '\\033[?1049h\\033[?1000h\\033[?1006h\\033[5zready'; exec sleep 100";
  await s.c.call("session.create", { name: "d", command: ["sh", "-c", program], cwd: s.dir });
  await s.c.call("session.wait", { session: "d", text: "ready" });
  const { code, stdout } = await s.d.cli(["debug", "d", "--clear"]);
  expect(code).toBe(0);
  const lines = stdout.split("\n");
  expect(lines[0]).toMatch(/^termios: {2}raw {2}\(iflag 0x[0-9a-f]+, oflag 0x[0-9a-f]+, lflag 0x[0-9a-f]+, cflag 0x[0-9a-f]+\)$/);
  expect(lines[1]).toStartWith("flags:    ");
  expect(lines[2]).toMatch(/^c_cc: {5}\S/);
  expect(lines[3]).toBe("modes:    mouse=vt200 mouse_sgr alternate");
  expect(lines[4]).toBe("unhandled: 1");
  expect(lines[5]).toBe("  \\e[5z  1b5b357a");
  const after = JSON.parse((await s.d.run(["debug", "d", "--json"])).stdout);
  expect(after).toMatchObject({ unhandled: [], dropped: 0, modes: { alternate: true, mouse: "vt200" }, termios: { mode: "raw" } });
});

test("debug of a plain program says (none) for its modes; an ended one's terminal is closed", async () => {
  await s.c.call("session.create", { name: "plain", command: ["true"], cwd: s.dir });
  await s.c.call("session.wait", { session: "plain", exit: true });
  expect((await s.d.run(["debug", "plain"])).stdout).toBe("termios:  (the terminal is closed)\nmodes:    (none)\nunhandled: 0\n");
  expect((await s.d.run(["debug"])).code).toBe(2);
  expect((await s.d.run(["debug", "nope"])).code).toBe(4);
});
