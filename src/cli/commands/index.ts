// The subcommands that talk to a running daemon: shared by the full binary and the Node client stub.
import type { CliCommand, CommandTable } from "../command.ts";

const loaded = (m: { default: CliCommand }) => m.default;

export const CLIENT_COMMANDS: CommandTable = {
  start: () => import("./start.ts").then(loaded),
  ls: () => import("./ls.ts").then(loaded),
  info: () => import("./info.ts").then(loaded),
  send: () => import("./send.ts").then(loaded),
  screen: () => import("./screen.ts").then(loaded),
  wait: () => import("./wait.ts").then(loaded),
  resize: () => import("./resize.ts").then(loaded),
  signal: () => import("./signal.ts").then(loaded),
  stop: () => import("./stop.ts").then(loaded),
  rm: () => import("./rm.ts").then(loaded),
  rename: () => import("./rename.ts").then(loaded),
  restart: () => import("./restart.ts").then(loaded),
  logs: () => import("./logs.ts").then(loaded),
  attach: () => import("./attach.ts").then(loaded),
  debug: () => import("./debug.ts").then(loaded),
  screenshot: () => import("./screenshot.ts").then(loaded),
  token: () => import("./token.ts").then(loaded),
  "show-trace": () => import("./show-trace.ts").then(loaded),
};
