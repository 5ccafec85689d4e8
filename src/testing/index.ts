// termd/testing: drive terminal programs from tests. launch() gives a Terminal. Importing this
// module also hooks termd/testing into the runner it runs under (runners/): under vitest and
// `bun test` the screen matchers are added to its expect; under node:test, expectTerminal asserts.
// Only the adapter of the runner found is loaded, so nothing here needs Bun under Node.
// The runners' matcher types (their `declare module` augmentations): imported for their types too,
// so the published index.d.ts keeps them (a declaration keeps an import only for its side effects).
import "./runners/bun.ts";
import "./runners/vitest.ts";
import { useRunner } from "./runner.ts";
import { bunRunner } from "./runners/bun.ts";
import { vitestRunner } from "./runners/vitest.ts";

if (process.env.VITEST) useRunner(await vitestRunner());
else if (process.versions.bun) useRunner(await bunRunner());

export { launch, type LaunchOptions, type ShellOptions } from "./launch.ts";
export { configure, type TestingConfig } from "./config.ts";
export { SHELLS, type ShellName } from "./shells.ts";
export { CutShortError, Terminal, WaitError, type WaitForTextOptions } from "./terminal.ts";
export { expectTerminal, type TerminalAssertions } from "./assert.ts";
export type { Screen, Match, ScrollbackOption } from "./screen.ts";
export type { WaitFor, InputOptions } from "./wait-for.ts";
export type { MouseTarget, MouseOptions, ClickOptions } from "./mouse.ts";
export type { Cell } from "./cells.ts";
export type { ShowTextOptions, RetryOptions, SnapshotOptions, ColorSpec } from "./matchers.ts";
