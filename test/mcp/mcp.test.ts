// termd mcp driven by the MCP SDK's own client over stdio, against a private daemon: what an
// agent host does.
import { expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DIST_BIN, SOURCE_BIN, TestDaemon } from "../harness.ts";
import { mcpClient } from "./mcp-client.ts";

const SHELL = ["bash", "--norc", "--noprofile"];
/** The binary agents run: dist/termd when built (npm test builds it first), else the source. */
const BIN = existsSync(DIST_BIN[0]!) ? DIST_BIN : SOURCE_BIN;

test("initialize, then list the tools with their JSON Schemas and descriptions", async () => {
  await using d = await TestDaemon.start({ bin: BIN });
  await using m = await mcpClient(d);
  expect(m.client.getServerVersion()?.name).toBe("termd");
  const { tools } = await m.client.listTools();
  const names = tools.map((t) => t.name).sort();
  expect(names).toEqual([
    "click",
    "list_sessions",
    "press_keys",
    "read_output",
    "read_screen",
    "resize",
    "run_command",
    "screenshot",
    "signal",
    "start_session",
    "stop_session",
    "submit",
    "type_secret",
    "type_text",
    "wait_for",
  ]);
  const wait = tools.find((t) => t.name === "wait_for")!;
  expect(wait.inputSchema.type).toBe("object");
  expect(wait.inputSchema.required).toEqual(["session"]);
  expect(Object.keys(wait.inputSchema.properties ?? {})).toEqual(
    expect.arrayContaining(["text", "regex", "gone", "idle_ms", "exit", "timeout_ms"]),
  );
  expect((wait.inputSchema.properties as Record<string, { description?: string }>).gone!.description).toContain("no longer on the screen");
  for (const t of tools) expect(t.description!.length).toBeGreaterThan(60);
  // Hints a host may use to ask the user less: reading never changes anything.
  expect(tools.find((t) => t.name === "read_screen")!.annotations).toMatchObject({ readOnlyHint: true });
  expect(tools.find((t) => t.name === "stop_session")!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
});

test("start bash, type, submit, wait for the output, read the screen; the session is owned by the client's name", async () => {
  await using d = await TestDaemon.start({ bin: BIN });
  await using m = await mcpClient(d, { name: "claude-code" });
  const started = await m.call("start_session", { name: "sh1", command: SHELL, env: { PS1: "$ " } });
  expect(started.isError).toBe(false);
  expect(started.text).toContain("started session sh1");
  expect(started.structured).toMatchObject({ name: "sh1", state: "running" });

  expect((await m.call("type_text", { session: "sh1", text: "echo $((6" })).isError).toBe(false);
  // clear_line: false finishes the line begun with type_text instead of clearing it.
  expect((await m.call("submit", { session: "sh1", text: "*7))", clear_line: false })).text).toContain("submitted");
  const waited = await m.call("wait_for", { session: "sh1", regex: "^42$" });
  expect(waited.text.split("\n")[0]).toBe("matched");
  expect(waited.structured).toMatchObject({ outcome: "matched", match: { text: "42", col: 0 } });
  // The matched row comes with its context: the command line above it.
  expect(waited.text).toContain("echo $((6*7))");

  await m.call("wait_for", { session: "sh1", regex: "^\\$ $" });
  const screen = await m.call("read_screen", { session: "sh1" });
  expect(screen.text).toMatch(/^\s*1│42$/m);
  // The cursor is marked where it is: after the prompt on the next row.
  expect(screen.text).toMatch(/^\s*2│.*\$ ▮$/m);
  expect(screen.text).toContain("cursor at row 2");

  // Only what changed since that read: the new rows.
  await m.call("submit", { session: "sh1", text: "echo second" });
  await m.call("wait_for", { session: "sh1", regex: "^second$" });
  // A reply gives what changed, so the agent has seen it; the clear is waited for apart, by a client of the daemon.
  await m.call("press_keys", { session: "sh1", keys: ["Ctrl+L"] });
  await (await d.client()).call("session.wait", { session: "sh1", regex: "^\\$ $", fresh: "input" });
  const changes = await m.call("read_screen", { session: "sh1", changes_only: true });
  expect(changes.text).toContain("changed since your last read");
  expect(changes.text).not.toContain("│42");
  expect(changes.text).toMatch(/^\s*0│\$ ▮$/m);

  // A screenshot is a real PNG, as image content.
  const shot = await m.call("screenshot", { session: "sh1" });
  const image = shot.result.content.find((c) => c.type === "image")!;
  expect(image).toMatchObject({ type: "image", mimeType: "image/png" });
  const png = Buffer.from((image as { data: string }).data, "base64");
  expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  // Its IHDR: 80 columns and 24 rows of 9x18-pixel cells.
  expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([80 * 9, 24 * 18]);
  expect(shot.text).toContain("720x432");

  // termd ls shows the owner.
  const ls = await d.cli(["ls"]);
  expect(ls.stdout).toMatch(/sh1\s+\S+\s+running\s+\d+\s+mcp:claude-code\s/);
  const listed = await m.call("list_sessions");
  expect(listed.text).toContain("owner mcp:claude-code (you)");
});

test("press keys, wait for text gone, for idle and for exit, each answering one word", async () => {
  await using d = await TestDaemon.start({ bin: BIN });
  await using m = await mcpClient(d);
  await m.call("start_session", { name: "py", command: ["python3", "-q"] });
  // A slow machine may take longer to show the prompt than start_session waits for a program that is not a shell.
  await m.call("wait_for", { session: "py", text: ">>> ", anywhere: true });
  await m.call("type_text", { session: "py", text: "x = 'waiting'" });
  expect((await m.call("wait_for", { session: "py", text: "waiting" })).structured?.outcome).toBe("matched");
  await m.call("press_keys", { session: "py", keys: ["Ctrl+U"] });
  expect((await m.call("wait_for", { session: "py", gone: "waiting" })).text.split("\n")[0]).toBe("gone");
  expect((await m.call("wait_for", { session: "py", idle_ms: 100 })).structured?.outcome).toBe("idle");
  const timeout = await m.call("wait_for", { session: "py", text: "never shown", timeout_ms: 200 });
  expect(timeout.text.split("\n")[0]).toBe("timeout");
  // The agent has seen this screen: the reply says nothing changed instead of repeating it.
  expect(timeout.text).toContain("nothing changed since your last read");

  // A full-screen program the agent saw exits: the rows its leaving cleared are summed up, not listed blank one by one.
  await m.call("start_session", { name: "vi", command: ["vim", "-u", "NONE", "-i", "NONE", "-N"] });
  await m.call("read_screen", { session: "vi" });
  await m.call("submit", { session: "vi", text: ":q" });
  const left = await m.call("wait_for", { session: "vi", exit: true });
  expect(left.text.split("\n")[0]).toBe("exited");
  expect(left.text).toMatch(/^\(rows \d+-23 are blank\)$/m);
  expect(left.text).not.toMatch(/^\s*\d+│$/m);
  await m.call("press_keys", { session: "py", keys: ["Ctrl+D"] });
  const exited = await m.call("wait_for", { session: "py", exit: true });
  expect(exited.structured).toMatchObject({ outcome: "exited", exit_code: 0 });
  expect(exited.text).toContain("exit code 0");
});

test("run a command in a shell session: output and exit code; stop the session", async () => {
  await using d = await TestDaemon.start({ bin: BIN });
  await using m = await mcpClient(d);
  await m.call("start_session", { name: "w", command: SHELL });
  const ok = await m.call("run_command", { session: "w", command: "cd /tmp && echo here: $(pwd)" });
  expect(ok.structured).toMatchObject({ exit_code: 0, stdout: "here: /tmp\n" });
  expect(ok.text).toStartWith("exit code 0");
  const bad = await m.call("run_command", { session: "w", command: "echo oops >&2; exit_status() { return 3; }; exit_status" });
  expect(bad.structured).toMatchObject({ exit_code: 3, stderr: "oops\n" });
  // cd carried over in the live shell.
  expect((await m.call("run_command", { session: "w", command: "pwd" })).structured?.stdout).toBe("/tmp\n");

  // The command as a shell would take it back: quoted where a word needs it.
  await m.call("start_session", { name: "q", command: ["sh", "-c", "sleep 100", "my name"] });
  const listed = await m.call("list_sessions");
  expect(listed.text).toContain("  sh -c 'sleep 100' 'my name'");
  expect(listed.structured?.sessions).toContainEqual(expect.objectContaining({ name: "q", command: "sh -c 'sleep 100' 'my name'" }));

  const stopped = await m.call("stop_session", { session: "w", remove: true });
  expect(stopped.text).toContain("session w stopped");
  expect((await (await d.client()).call("session.list")).sessions.map((x) => x.name)).toEqual(["q"]);
});

test("wait for a command done in a shell: its exit code and output", async () => {
  await using d = await TestDaemon.start({ bin: BIN });
  await using m = await mcpClient(d);
  // A home of its own: the machine's rc files play no part.
  await m.call("start_session", { name: "sh", command: ["bash"], env: { HOME: d.dir, PS1: "$ " } });
  await m.call("submit", { session: "sh", text: "sleep 0.2; echo finished; false" });
  const done = await m.call("wait_for", { session: "sh", command_done: true });
  expect(done.text.split("\n")[0]).toBe("command_done");
  expect(done.structured).toMatchObject({
    outcome: "command_done",
    exit_code: 1,
    command: "sleep 0.2; echo finished; false",
    output: "finished\n",
  });
  expect(done.text).toContain("finished with exit code 1");
});

test("a long wait reports progress every 2 s to a host that asks for it", async () => {
  await using d = await TestDaemon.start({ bin: BIN });
  await using m = await mcpClient(d);
  await m.call("start_session", { name: "q", command: ["cat"] });
  const seen: number[] = [];
  const r = await m.client.callTool({ name: "wait_for", arguments: { session: "q", text: "never", timeout_ms: 3500 } }, undefined, {
    onprogress: (p) => void seen.push(p.progress),
    resetTimeoutOnProgress: true,
  });
  expect((r.structuredContent as { outcome: string }).outcome).toBe("timeout");
  expect(seen.length).toBeGreaterThanOrEqual(1);
  expect(seen[0]).toBe(2);
});

test("an unknown session is an error result that names the running ones and what to do", async () => {
  await using d = await TestDaemon.start({ bin: BIN });
  await using m = await mcpClient(d);
  await m.call("start_session", { name: "alpha", command: ["cat"] });
  await m.call("start_session", { name: "beta", command: ["cat"] });
  const r = await m.call("read_screen", { session: "nope" });
  expect(r.isError).toBe(true);
  expect(r.text).toBe("no session named nope; running sessions: alpha, beta; start one with start_session");
  // A tool that needs a shell, in a session that is not one, says what to use instead.
  const notShell = await m.call("run_command", { session: "alpha", command: "true" });
  expect(notShell.isError).toBe(true);
  expect(notShell.text).toContain('start_session with command ["bash"]');
  // Bad arguments name the field.
  const bad = await m.call("wait_for", { session: "alpha", timeout_ms: -1 });
  expect(bad.isError).toBe(true);
  expect(bad.text).toContain("timeout_ms");
});

test("click sends the mouse report the program asked for; a program without mouse mode gets advice", async () => {
  await using d = await TestDaemon.start({ bin: BIN });
  await using m = await mcpClient(d);
  await m.call("start_session", {
    name: "mouse",
    command: ["python3", join(import.meta.dir, "..", "fixtures", "mouse-echo.py"), "1000", "1006"],
  });
  // Shown already when start_session returned: anywhere, or the wait counts only what comes after it.
  await m.call("wait_for", { session: "mouse", text: "ready", anywhere: true });
  expect((await m.call("click", { session: "mouse", row: 2, col: 4 })).isError).toBe(false);
  // SGR reports are 1-based: press and release of the left button at column 5, row 3.
  expect((await m.call("wait_for", { session: "mouse", text: "[<0;5;3M\\x1b[<0;5;3m" })).structured?.outcome).toBe("matched");
  await m.call("start_session", { name: "plain", command: ["cat"] });
  const refused = await m.call("click", { session: "plain", row: 0, col: 0 });
  expect(refused.isError).toBe(true);
  expect(refused.text).toContain("use press_keys");
});

test("typing into a session a person has taken over is an error result that says to wait until it is given back", async () => {
  await using d = await TestDaemon.start({ bin: BIN });
  await using m = await mcpClient(d);
  await m.call("start_session", { name: "held", command: ["cat"] });
  const person = await d.client();
  await person.call("session.subscribe", { session: "held", events: ["state"], take_over: true, holder: "alice" });
  const r = await m.call("type_text", { session: "held", text: "from the agent" });
  expect(r.isError).toBe(true);
  expect(r.text).toStartWith("a person (alice) has taken over session held since ");
  expect(r.text).toContain("until they give it back");
  expect(r.text).toContain("wait_for with idle_ms, then list_sessions");
  expect((await m.call("list_sessions")).text).toContain("held  running (held by alice: a person took it over)");
  // Given back: the same call goes through.
  await person.call("session.subscribe", { session: "held", events: ["state"], take_over: false });
  expect((await m.call("type_text", { session: "held", text: "from the agent" })).isError).toBe(false);
});

test("type_secret: without elicitation in the host it says to use termd attach, and types nothing", async () => {
  await using d = await TestDaemon.start({ bin: BIN });
  await using m = await mcpClient(d);
  await m.call("start_session", { name: "login", command: ["cat"] });
  const r = await m.call("type_secret", { session: "login", prompt: "password" });
  expect(r.isError).toBe(true);
  expect(r.text).toContain("termd attach login");
});

test("type_secret: with elicitation, the user's answer goes to the program, not into the result", async () => {
  await using d = await TestDaemon.start({ bin: BIN });
  await using m = await mcpClient(d, { capabilities: { elicitation: {} } });
  const { ElicitRequestSchema } = await import("@modelcontextprotocol/sdk/types.js");
  let asked = "";
  m.client.setRequestHandler(ElicitRequestSchema, (req) => {
    asked = req.params.message;
    return { action: "accept", content: { secret: "hunter2" } };
  });
  // Recorded with its input: the secret stays out of the recording.
  const cast = join(d.dir, "login.cast");
  await (await d.client()).call("session.create", {
    name: "login",
    record: cast,
    command: ["bash", "--norc", "--noprofile", "-c", 'read -s -p "Password: " pw; echo; echo "length ${#pw}"'],
  });
  expect((await m.call("wait_for", { session: "login", text: "Password:", anywhere: true })).structured?.outcome).toBe("matched");
  const r = await m.call("type_secret", { session: "login", prompt: "sudo password" });
  expect(r.isError).toBe(false);
  expect(asked).toContain("sudo password");
  expect(JSON.stringify(r.result)).not.toContain("hunter2");
  expect((await m.call("wait_for", { session: "login", text: "length 7" })).structured?.outcome).toBe("matched");
  await m.call("wait_for", { session: "login", exit: true });
  const recorded = readFileSync(cast, "utf8");
  expect(recorded).toContain("length 7");
  expect(recorded).not.toContain("hunter2");
});

test.skipIf(!existsSync(DIST_BIN[0]!))("the compiled binary serves MCP too (the SDK is inside it)", async () => {
  await using d = await TestDaemon.start({ bin: SOURCE_BIN });
  await using m = await mcpClient(d, { bin: DIST_BIN });
  expect((await m.client.listTools()).tools.length).toBeGreaterThan(5);
  await m.call("start_session", { name: "c", command: ["cat"] });
  await m.call("type_text", { session: "c", text: "compiled" });
  expect((await m.call("wait_for", { session: "c", text: "compiled" })).structured?.outcome).toBe("matched");
});

test("with no daemon running, the first tool call starts the user's daemon, as the CLI does", async () => {
  const dir = mkdtempSync(join(tmpdir(), "termd-mcp-auto-"));
  const env = {
    ...(process.env as Record<string, string>),
    TERMD_SOCKET: join(dir, "run", "auto.sock"),
    TERMD_STATE_DIR: join(dir, "state"),
  };
  const stop = () => Bun.spawn([...SOURCE_BIN, "daemon", "stop", "--grace", "500"], { env, stdout: "ignore", stderr: "ignore" }).exited;
  try {
    const fake = { bin: SOURCE_BIN, env } as unknown as TestDaemon;
    await using m = await mcpClient(fake, { name: "auto-agent" });
    const started = await m.call("start_session", { name: "a", command: ["cat"] });
    expect(started.isError).toBe(false);
    const ls = Bun.spawn([...SOURCE_BIN, "ls", "--json"], { env, stdout: "pipe" });
    const sessions = JSON.parse(await new Response(ls.stdout).text());
    expect(sessions).toMatchObject([{ name: "a", meta: { owner: "mcp:auto-agent" } }]);
  } finally {
    await stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("wait_for counts only text new since the agent's last input, or since the call; anywhere: true counts what was already there", async () => {
  await using d = await TestDaemon.start({ bin: BIN });
  await using m = await mcpClient(d);
  await m.call("start_session", { name: "w1", command: SHELL, env: { PS1: "$ " } });
  await m.call("submit", { session: "w1", text: "echo 'first; done'" });
  await m.call("wait_for", { session: "w1", regex: "^first; done$" });
  // The typed line holds "done" too, and so does the older output: neither answers.
  await m.call("submit", { session: "w1", text: "sleep 0.3; echo done" });
  const w = await m.call("wait_for", { session: "w1", text: "done" });
  expect(w.structured).toMatchObject({ outcome: "matched", match: { col: 0, text: "done" } });
  expect(w.text).toMatch(/^\s*\d+│done$/m);
  expect((await m.call("wait_for", { session: "w1", text: "first; done", timeout_ms: 200 })).structured?.outcome).toBe("timeout");
  expect((await m.call("wait_for", { session: "w1", text: "first; done", anywhere: true })).structured).toMatchObject({
    outcome: "matched",
    match: { row: 0, text: "first; done" },
  });

  // A session the agent never typed into: what was there before the call is old.
  await m.call("start_session", { name: "c1", command: ["cat"] });
  const person = await d.client();
  await person.call("session.input", { session: "c1", text: "old news\r" });
  // The terminal's echo, then cat's copy below it: both on the screen before the next call (a
  // settle could pass before a cat held back on a loaded machine wrote its copy).
  let screen = await person.call("session.screen", { session: "c1" });
  while (screen.lines[1] !== "old news") screen = (await person.call("session.wait", { session: "c1", changed_from: screen.hash })).screen;
  expect((await m.call("wait_for", { session: "c1", text: "news", timeout_ms: 200 })).structured?.outcome).toBe("timeout");
  // The call counts from when the daemon has it, by way of the MCP server: a line typed before
  // then is old to it (typed once, the line often came first). So a line is typed until one answers.
  const later = m.call("wait_for", { session: "c1", text: "news" });
  let answered = false;
  void later.finally(() => (answered = true));
  while (!answered) {
    await person.call("session.input", { session: "c1", text: "fresh news\r" });
    await Promise.race([later, person.call("session.wait", { session: "c1", changed_from: screen.hash })]);
    screen = await person.call("session.screen", { session: "c1" });
  }
  expect((await later).structured).toMatchObject({ outcome: "matched", match: { col: 6, text: "news" } });
});

test("replies are lean: trailing spaces trimmed, only the rows changed since the agent last saw the screen, text under the stated size", async () => {
  await using d = await TestDaemon.start({ bin: BIN });
  await using m = await mcpClient(d);
  await m.call("start_session", { name: "v", command: ["vim", "-u", "NONE", "-N"], env: { HOME: d.dir } });
  await m.call("wait_for", { session: "v", text: "~", anywhere: true });
  const screen = await m.call("read_screen", { session: "v" });
  expect(screen.text).toMatch(/^\s*2│~$/m);
  for (const line of screen.text.split("\n")) expect(line).not.toMatch(/ $/);

  // start_session gave the whole first screen: a wait's reply has only the rows that changed since.
  await m.call("start_session", { name: "s", command: SHELL, env: { PS1: "$ " } });
  await m.call("submit", { session: "s", text: "echo one" });
  await m.call("wait_for", { session: "s", regex: "^one$" });
  await m.call("submit", { session: "s", text: "echo two" });
  const w = await m.call("wait_for", { session: "s", regex: "^two$" });
  expect(w.text).toContain("changed since your last read");
  expect(w.text).toMatch(/^\s*3│two$/m);
  expect(w.text).not.toContain("│one");

  const big = await m.call("run_command", { session: "s", command: "seq 1 100000" });
  expect(big.text.length).toBeLessThan(16_000);
  expect(big.text).toContain("characters left out");
  expect(big.text).toContain("\n100000");
});

test("start_session returns once the program is ready, with that screen; submit clears a shell's input line, and refuses to add to typed text elsewhere", async () => {
  await using d = await TestDaemon.start({ bin: BIN });
  await using m = await mcpClient(d);
  // bash with its hooks: the first prompt is drawn when the call returns.
  const sh = await m.call("start_session", { name: "b", command: SHELL, env: { PS1: "$ " } });
  expect(sh.text).toMatch(/^\s*0│\$ ▮$/m);
  // Another program: its screen once it shows something and settled (here after a moment's work).
  const other = await m.call("start_session", {
    name: "o",
    command: ["sh", "-c", "i=0; while [ $i -lt 5000 ]; do i=$((i+1)); done; printf 'ready> '; read x"],
  });
  expect(other.text).toMatch(/^\s*0│ready> ▮$/m);
  await m.call("start_session", { name: "py", command: ["python3", "-q"] });
  await m.call("wait_for", { session: "py", text: ">>> ", anywhere: true });

  await m.call("type_text", { session: "b", text: "left over" });
  await m.call("wait_for", { session: "b", text: "left over" });
  const sent = await m.call("submit", { session: "b", text: "echo clean" });
  expect(sent.text).toContain("text left on the shell's input line was cleared first");
  await m.call("wait_for", { session: "b", regex: "^clean$" });
  expect((await m.call("read_screen", { session: "b" })).text).not.toContain("left over");

  await m.call("type_text", { session: "py", text: "6*" });
  const refused = await m.call("submit", { session: "py", text: "7" });
  expect(refused.isError).toBe(true);
  expect(refused.text).toContain("clear_line: false");
  const joined = await m.call("submit", { session: "py", text: "7", clear_line: false, show_change: true });
  expect(joined.isError).toBe(false);
  expect(joined.text).toMatch(/^\s*1│42$/m);
});

test("run_command answers once the shell is back at its prompt, so a submit right after lands after it, with nothing to clear", async () => {
  await using d = await TestDaemon.start({ bin: BIN });
  await using m = await mcpClient(d);
  // A prompt that takes a while to come (a slow PROMPT_COMMAND, as version-control prompts are).
  await m.call("start_session", { name: "slow", command: SHELL, env: { PS1: "$ ", PROMPT_COMMAND: 'sleep "${SLOW:-0.3}"' } });
  expect((await m.call("run_command", { session: "slow", command: "echo r0" })).structured?.stdout).toBe("r0\n");
  const sent = await m.call("submit", { session: "slow", text: "echo s0" });
  expect(sent.text).not.toContain("cleared");
  expect((await m.call("wait_for", { session: "slow", command_done: true })).structured).toMatchObject({ output: "s0\n" });
  // Interrupted by its timeout, the same; and run right after a command_done, it waits for that prompt too.
  expect((await m.call("run_command", { session: "slow", command: "sleep 30", timeout_ms: 300 })).structured?.timed_out).toBe(true);
  expect((await m.call("submit", { session: "slow", text: "echo s1" })).text).not.toContain("cleared");
  await m.call("wait_for", { session: "slow", command_done: true });
  const { screen } = await (await d.client()).call("session.wait", { session: "slow", prompt: true });
  // Each line typed after its prompt: none reads `echo s0$ echo s0`.
  expect(screen.lines.filter((l) => l.trim() !== "")).toEqual([
    "$ echo r0",
    "r0",
    "$ echo s0",
    "s0",
    "$ sleep 30",
    "^C",
    "$ echo s1",
    "s1",
    "$ ",
  ]);
  // A prompt that never comes holds the answer only for a bounded time.
  expect((await m.call("run_command", { session: "slow", command: "SLOW=1000" })).structured).toMatchObject({ exit_code: 0 });
});

test("resize, signal, read_output, and press_keys returning the change it made", async () => {
  await using d = await TestDaemon.start({ bin: BIN });
  await using m = await mcpClient(d);
  await m.call("start_session", { name: "t", command: SHELL, env: { PS1: "$ " } });
  expect((await m.call("resize", { session: "t", rows: 30, cols: 100 })).structured).toMatchObject({ size: { rows: 30, cols: 100 } });
  expect((await m.call("run_command", { session: "t", command: "stty size </dev/tty" })).structured?.stdout).toBe("30 100\n");

  // The signal goes once the job runs (before, the shell itself is the foreground job): the job prints "started".
  await m.call("submit", { session: "t", text: "sh -c 'echo started; exec sleep 100'" });
  await m.call("wait_for", { session: "t", regex: "^started$" });
  const sent = await m.call("signal", { session: "t", signal: "INT" });
  expect(sent.structured).toMatchObject({ signal_sent: "SIGINT" });
  expect((await m.call("wait_for", { session: "t", command_done: true })).structured).toMatchObject({
    outcome: "command_done",
    exit_code: 130,
  });
  expect((await m.call("signal", { session: "t", signal: "NOPE" })).isError).toBe(true);

  // Output as text with its line edits applied, each read going on from the last.
  const first = await m.call("read_output", { session: "t" });
  expect(first.text).toContain("sh -c 'echo started; exec sleep 100'");
  await m.call("submit", { session: "t", text: "printf 'abc\\b\\bX\\n\\033[31mred\\033[0m\\n'" });
  await m.call("wait_for", { session: "t", regex: "^red$" });
  const next = await m.call("read_output", { session: "t" });
  expect(next.text).not.toContain("started");
  expect(next.text).toMatch(/^aXc$/m);
  expect(next.text).toMatch(/^red$/m);
  expect(next.text).not.toContain("\x1b");
  expect((await m.call("read_output", { session: "t", max_chars: 100 })).text).toContain("no new output");

  const pressed = await m.call("press_keys", {
    session: "t",
    keys: ["e", "c", "h", "o", "Space", "k", "e", "y", "s", "Enter"],
    show_change: true,
  });
  expect(pressed.text).toMatch(/^\s*\d+│keys$/m);
});

test("run_command leaves nothing of its plumbing on the screen or in the history; clear clears; exit says the session ended", async () => {
  await using d = await TestDaemon.start({ bin: BIN });
  await using m = await mcpClient(d);
  await m.call("start_session", { name: "r", command: ["bash"], env: { HOME: d.dir, PS1: "$ " } });
  await m.call("submit", { session: "r", text: "echo mine" });
  await m.call("wait_for", { session: "r", command_done: true });
  expect((await m.call("run_command", { session: "r", command: "echo from-agent" })).structured?.stdout).toBe("from-agent\n");
  // Interrupted by its timeout: the line that asks for the mark goes the same way.
  expect((await m.call("run_command", { session: "r", command: "sleep 30", timeout_ms: 300 })).structured).toMatchObject({
    timed_out: true,
  });
  const person = await d.client();
  const screen = (await person.call("session.screen", { session: "r" })).lines.join("\n");
  expect(screen).not.toContain("termd-exec");
  expect(screen).not.toContain("termd-done");
  // The person's history has their command and none of exec's lines; a command_done wait sees theirs.
  await m.call("submit", { session: "r", text: "history" });
  const h = await m.call("wait_for", { session: "r", command_done: true });
  expect(h.structured).toMatchObject({ command: "history" });
  expect(String(h.structured?.output)).toContain("echo mine");
  expect(String(h.structured?.output)).not.toContain("termd-exec");

  const cleared = await m.call("run_command", { session: "r", command: "clear" });
  expect(cleared.structured).toMatchObject({ exit_code: 0, stdout: "" });
  const after = await person.call("session.wait", { session: "r", prompt: true });
  expect(after.screen.lines.filter((l) => l.trim() !== "")).toEqual([expect.stringMatching(/[$#] $/)]);

  const exit = await m.call("run_command", { session: "r", command: "exit 7" });
  expect(exit.structured).toMatchObject({ exit_code: 7, session_ended: true });
  expect(exit.text).toContain("the shell exited, so session r has ended");
});

test("submit after type_text and Escape in vim is a command, not a refusal: :wq saves and exits; at a line editor the refusal's advice removes what was typed", async () => {
  await using d = await TestDaemon.start({ bin: BIN });
  await using m = await mcpClient(d);
  const file = join(d.dir, "note.txt");
  await m.call("start_session", { name: "v", command: ["vim", "-u", "NONE", "-i", "NONE", "-N", "-c", "set t_BE=\\e[?2004h", file] });
  await m.call("press_keys", { session: "v", keys: ["i"] });
  await m.call("type_text", { session: "v", text: "hello" });
  await m.call("press_keys", { session: "v", keys: ["Escape"] });
  const wq = await m.call("submit", { session: "v", text: ":wq" });
  expect(wq.isError).toBe(false);
  expect((await m.call("wait_for", { session: "v", exit: true })).structured).toMatchObject({ outcome: "exited" });
  expect(await Bun.file(file).text()).toBe("hello\n");

  // python3's line editor: the typed text is on its input line, so submit refuses and says how to take it back.
  await m.call("start_session", { name: "py", command: ["python3", "-q"] });
  await m.call("wait_for", { session: "py", text: ">>> ", anywhere: true });
  await m.call("type_text", { session: "py", text: "6*" });
  await m.call("wait_for", { session: "py", text: ">>> 6*", anywhere: true });
  const refused = await m.call("submit", { session: "py", text: "7" });
  expect(refused.isError).toBe(true);
  expect(refused.text).toContain('press_keys ["Backspace","Backspace"]');
  // Taken back as advised, the line is empty and submit goes ahead.
  await m.call("press_keys", { session: "py", keys: ["Backspace", "Backspace"], show_change: true });
  const sent = await m.call("submit", { session: "py", text: "6*7", show_change: true });
  expect(sent.isError).toBe(false);
  expect(sent.text).toMatch(/│42$/m);
});
