// The MCP tool table: every tool, one file each.
import type { Tool } from "../tool.ts";
import startSession from "./start_session.ts";
import typeText from "./type_text.ts";
import pressKeys from "./press_keys.ts";
import submit from "./submit.ts";
import readScreen from "./read_screen.ts";
import waitFor from "./wait_for.ts";
import runCommand from "./run_command.ts";
import listSessions from "./list_sessions.ts";
import stopSession from "./stop_session.ts";
import typeSecret from "./type_secret.ts";
import click from "./click.ts";
import screenshot from "./screenshot.ts";
import resize from "./resize.ts";
import signal from "./signal.ts";
import readOutput from "./read_output.ts";

export const TOOLS: readonly Tool<any>[] = [
  startSession,
  typeText,
  pressKeys,
  submit,
  click,
  readScreen,
  readOutput,
  screenshot,
  waitFor,
  runCommand,
  listSessions,
  stopSession,
  typeSecret,
  resize,
  signal,
];
