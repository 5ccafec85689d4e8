// The byte-level DEC/ANSI parser: pure TypeScript with no Bun or node imports, so the same code
// runs in the daemon and in a browser.
export {
  ACTION_NAMES,
  MAX_DCS_BYTES,
  MAX_INTERMEDIATES,
  MAX_OSC_BYTES,
  MAX_PARAMS,
  MAX_PARAM_VALUE,
  PRINT_BUFFER_SIZE,
  ParserAction,
  ParserState,
  STATE_NAMES,
} from "./constants.ts";
export { OMITTED, Params } from "./params.ts";
export { Parser } from "./parser.ts";
export { NoopPerformer, type Performer } from "./performer.ts";
export { REPLACEMENT, codepointsToString, decodeUtf8 } from "./utf8.ts";
