// launch(): a program in a new session of the test's daemon, as a Terminal.
import { randomBytes } from "node:crypto";
import { settings, type Trace } from "./config.ts";
import { daemon } from "./daemon.ts";
import { isShellName, shellCommand, type ShellName, type ShellPreset } from "./shells.ts";
import { runner } from "./runner.ts";
import { defaultTimeout, Terminal } from "./terminal.ts";
import { testRunAt } from "./test-context.ts";

export interface LaunchOptions {
  /** Default 24, or the project's (configure()). */
  rows?: number;
  /** Default 80, or the project's. */
  cols?: number;
  /** Where the program starts (default: the test process's working directory). */
  cwd?: string;
  /** Added to the environment the program inherits (the test process's, for the private daemon), over the project's `env`. */
  env?: Record<string, string>;
  /** The session's name (default: the test's name and a random suffix); artifacts are named after it too. */
  name?: string;
  /** The shell that runs a command given as a string (default /bin/sh, or the project's). */
  shell?: string;
  /** Lines of scrollback (default 1000). */
  scrollback?: number;
  /** TERM (default xterm-256color). */
  term?: string;
  /** Default timeout of this terminal's waits and matchers, ms (default: 10000, at most 60% of the runner's test timeout; or the project's). */
  timeout?: number;
  /** Text a wait or matcher finds in more than one place fails, naming each (default false, or the project's). */
  strict?: boolean;
  /** When this terminal's recording and screens are kept: "retain-on-failure" (default, or the project's), "on", "off". */
  trace?: Trace;
}

/** launch.shell()'s options: launch()'s, and the preset's prompt and rc files. */
export interface ShellOptions extends LaunchOptions, ShellPreset {}

/**
 * Starts `command` (an argv array, or a string for `shell -c`) in a fresh session and gives its
 * Terminal. Use it with `await using`, so the session is stopped and removed when the test ends.
 * `launch.shell(name?)` starts a shell preset instead.
 */
export const launch = Object.assign(
  (command: string[] | string, opts: LaunchOptions = {}): Promise<Terminal> =>
    // The stack now, before any await: it still reaches the test's own code.
    start(new Error().stack ?? "", command, opts),
  { shell: launchShell },
);

/**
 * A shell preset: bash, zsh or fish (default: $TERMD_TEST_SHELL, else the project's `shell` when
 * it is one of them, else bash) with no rc files, a `$ ` prompt and termd's shell integration,
 * once its first prompt is drawn.
 */
function launchShell(name?: ShellName, opts: ShellOptions = {}): Promise<Terminal> {
  const stack = new Error().stack ?? "";
  const fromEnv = process.env.TERMD_TEST_SHELL;
  const configured = settings().shell;
  const shell = name ?? (fromEnv ? fromEnv : isShellName(configured) ? configured : "bash");
  if (!isShellName(shell))
    return Promise.reject(
      new Error(`launch.shell: ${JSON.stringify(shell)} is not bash, zsh or fish${name ? "" : " (from TERMD_TEST_SHELL)"}`),
    );
  return (async () => {
    const { argv, env, removeFiles } = shellCommand(shell, opts, (await daemon()).scratch());
    let t: Terminal;
    try {
      t = await start(stack, argv, { ...opts, env: { ...env, ...opts.env } }, removeFiles);
    } catch (err) {
      removeFiles();
      throw err;
    }
    await t.firstPrompt(opts.rc ? undefined : (opts.prompt ?? "$ "));
    return t;
  })();
}

/** `onClose`: what to remove once the terminal closed (a shell preset's files). */
async function start(stack: string, command: string[] | string, opts: LaunchOptions, onClose?: () => void): Promise<Terminal> {
  const run = testRunAt(stack, true);
  const project = settings();
  const argv = typeof command === "string" ? [opts.shell ?? project.shell ?? "/bin/sh", "-c", command] : command;
  if (argv.length === 0) throw new Error("launch: the command is empty");
  const n = run?.nextLaunch() ?? 1;
  const label = opts.name ?? (n === 1 ? "terminal" : `terminal-${n}`);
  const session = opts.name ?? `${(run?.slug ?? "termd-testing").slice(0, 40)}-${randomBytes(4).toString("hex")}`;
  const d = await daemon();
  await d.client.call("session.create", {
    command: argv,
    name: session,
    cwd: opts.cwd ?? process.cwd(),
    rows: opts.rows ?? project.rows ?? 24,
    cols: opts.cols ?? project.cols ?? 80,
    ...(opts.env || project.env ? { env: { ...project.env, ...opts.env } } : {}),
    ...(opts.scrollback !== undefined ? { scrollback: opts.scrollback } : {}),
    ...(opts.term ? { term: opts.term } : {}),
  });
  if (process.env.TERMD_DEBUG)
    console.error(`termd/testing: session ${session} on ${d.socket} (watch: termd attach ${session} --socket ${d.socket})`);
  return new Terminal({
    client: d.client,
    socket: d.socket,
    session,
    label,
    run,
    timeout: opts.timeout ?? project.timeout ?? defaultTimeout(runner().testTimeout()),
    strict: opts.strict ?? project.strict ?? false,
    trace: opts.trace ?? project.trace ?? "retain-on-failure",
    ...(onClose ? { onClose } : {}),
  });
}
