// The method table: every native method, one file each.
import type { Command } from "../command.ts";
import systemPing from "./system.ping.ts";
import systemStats from "./system.stats.ts";
import systemShutdown from "./system.shutdown.ts";
import systemScreens from "./system.screens.ts";
import systemHandover from "./system.handover.ts";
import sessionCreate from "./session.create.ts";
import sessionList from "./session.list.ts";
import sessionInfo from "./session.info.ts";
import sessionInput from "./session.input.ts";
import sessionScreen from "./session.screen.ts";
import sessionWait from "./session.wait.ts";
import sessionScreenshot from "./session.screenshot.ts";
import sessionResize from "./session.resize.ts";
import sessionSignal from "./session.signal.ts";
import sessionStop from "./session.stop.ts";
import sessionRemove from "./session.remove.ts";
import sessionRename from "./session.rename.ts";
import sessionRestart from "./session.restart.ts";
import sessionOutput from "./session.output.ts";
import sessionCast from "./session.cast.ts";
import sessionDebug from "./session.debug.ts";
import sessionSubscribe from "./session.subscribe.ts";
import sessionUnsubscribe from "./session.unsubscribe.ts";
import execRun from "./exec.run.ts";
import execCancel from "./exec.cancel.ts";

const ALL: Command<any, any>[] = [
  systemPing,
  systemStats,
  systemShutdown,
  systemScreens,
  systemHandover,
  sessionCreate,
  sessionList,
  sessionInfo,
  sessionInput,
  sessionScreen,
  sessionScreenshot,
  sessionWait,
  sessionResize,
  sessionSignal,
  sessionStop,
  sessionRemove,
  sessionRename,
  sessionRestart,
  sessionOutput,
  sessionCast,
  sessionDebug,
  sessionSubscribe,
  sessionUnsubscribe,
  execRun,
  execCancel,
];

export const COMMANDS: ReadonlyMap<string, Command<any, any>> = new Map(ALL.map((c) => [c.name, c]));
