// termd/testing: drive terminal programs from `bun test`. launch() gives a Terminal; importing this
// module also adds the screen matchers to bun:test's expect.
import "./expect-failures.ts";
import "./matchers.ts";

export { launch, type LaunchOptions } from "./launch.ts";
export { Terminal, WaitError, type Screen, type Match, type WaitFor, type InputOptions, type WaitForTextOptions } from "./terminal.ts";
export type { Cell } from "./cells.ts";
export type { ShowTextOptions, RetryOptions, SnapshotOptions, ColorSpec } from "./matchers.ts";
