// termd/testing: drive terminal programs from `bun test`. launch() gives a Terminal; importing this
// module also adds the screen matchers to bun:test's expect (and wraps its own, to know a failure).
import "./expect-failures.ts";
import "./matchers.ts";

export { launch, type LaunchOptions } from "./launch.ts";
export { Terminal, WaitError, type WaitForTextOptions } from "./terminal.ts";
export type { Screen, Match, ScrollbackOption } from "./screen.ts";
export type { WaitFor, InputOptions } from "./wait-for.ts";
export type { MouseTarget, MouseOptions, ClickOptions } from "./mouse.ts";
export type { Cell } from "./cells.ts";
export type { ShowTextOptions, RetryOptions, SnapshotOptions, ColorSpec } from "./matchers.ts";
