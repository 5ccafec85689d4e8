// The daemon's xterm addons (@xterm/addon-serialize) name their terminal type from '@xterm/xterm',
// the browser build, whose typings pull the DOM library into every file. tsconfig.json maps that
// name here for the daemon's program, so the addons are typed against the headless terminal they
// run on; the attach page (src/web/page, its own tsconfig) gets the real browser typings.
export { Terminal, type ITerminalAddon, type IMarker, type IBufferRange } from "@xterm/headless";
