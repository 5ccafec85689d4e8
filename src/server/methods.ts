// The native method table, for a command that describes the protocol (`termd schema`) without
// hosting a daemon.
export { COMMANDS } from "../daemon/commands/index.ts";
