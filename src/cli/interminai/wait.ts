// `interminai wait`: until output since the activity flag was last read, or the exit (default);
// until the exit, printing the code (--quiet); or until a screen line matches (--line N with
// --contains P, --not-contains P or neither: "until it changes"), polling OUTPUT between
// activity WAITs exactly as interminai does.
import { Failure, SOCKET, type Subcommand } from "./args.ts";
import { call } from "./request.ts";
import { writeOut } from "../closed-stdout.ts";

async function lineOf(socket: string, n: number): Promise<string> {
  const data = await call(socket, { type: "OUTPUT", format: "ascii" }).catch((e: Failure) => {
    throw new Failure(e.message.replace(/^Error: /, "Error: Failed to get output: "));
  });
  const screen = typeof data.screen === "string" ? data.screen : "";
  return screen.split("\n")[n - 1] ?? "";
}

async function waitForLine(socket: string, line: number, contains?: string, notContains?: string): Promise<number> {
  const initial = contains === undefined && notContains === undefined ? await lineOf(socket, line) : "";
  const holds = (text: string) =>
    contains !== undefined ? text.includes(contains) : notContains !== undefined ? !text.includes(notContains) : text !== initial;
  if (holds(await lineOf(socket, line))) {
    await writeOut(`Condition already met on line ${line}\n`);
    return 0;
  }
  for (;;) {
    const w = await call(socket, { type: "WAIT", activity: true });
    if (w.exited === true) {
      await writeOut("Application exited\n");
      return 0;
    }
    if (holds(await lineOf(socket, line))) {
      await writeOut(`Condition met on line ${line}\n`);
      return 0;
    }
  }
}

export const wait: Subcommand = {
  name: "wait",
  about: "Wait until session exits or activity occurs",
  opts: [
    SOCKET,
    { long: "quiet", help: "Quiet mode: wait for exit only, print exit code" },
    { long: "line", value: "LINE", help: "Wait until content of this line number changes (1-based)" },
    { long: "not-contains", value: "PATTERN", help: "With --line: wait until line does NOT contain this pattern" },
    { long: "contains", value: "PATTERN", help: "With --line: wait until line contains this pattern" },
  ],
  async run(a) {
    const socket = a.values.get("socket")!;
    const lineArg = a.values.get("line");
    if (lineArg !== undefined) {
      if (!/^\d+$/.test(lineArg))
        throw new Failure(`error: invalid value '${lineArg}' for '--line <LINE>': invalid digit found in string`, 2);
      const line = Number(lineArg);
      if (line === 0) throw new Failure("Error: line number must be 1 or greater (1-based)");
      const contains = a.values.get("contains");
      const notContains = a.values.get("not-contains");
      if (contains !== undefined && notContains !== undefined)
        throw new Failure("Error: --not-contains and --contains are mutually exclusive");
      return waitForLine(socket, line, contains, notContains);
    }
    const quiet = a.flags.has("quiet");
    const data = await call(socket, { type: "WAIT", activity: !quiet });
    if (quiet) {
      if ("exit_code" in data) await writeOut(`${JSON.stringify(data.exit_code)}\n`);
    } else {
      await writeOut(`Terminal activity: ${data.activity === true}\nApplication exited: ${data.exited === true}\n`);
    }
    return 0;
  },
};
