// The subcommands that talk to a running daemon: shared by the full binary and the Node client stub.
import type { CliCommand } from "../command.ts";
import start from "./start.ts";
import ls from "./ls.ts";
import info from "./info.ts";
import send from "./send.ts";
import screen from "./screen.ts";
import wait from "./wait.ts";
import resize from "./resize.ts";
import signal from "./signal.ts";
import stop from "./stop.ts";
import rm from "./rm.ts";
import rename from "./rename.ts";
import restart from "./restart.ts";
import logs from "./logs.ts";
import attach from "./attach.ts";
import debug from "./debug.ts";
import screenshot from "./screenshot.ts";
import token from "./token.ts";
import showTrace from "./show-trace.ts";

export const CLIENT_COMMANDS: CliCommand[] = [
  start,
  ls,
  info,
  send,
  screen,
  wait,
  resize,
  signal,
  stop,
  rm,
  rename,
  restart,
  logs,
  attach,
  debug,
  screenshot,
  token,
  showTrace,
];
