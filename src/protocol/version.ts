// One place for the numbers a client and a daemon compare. Bump PROTOCOL_VERSION when a method's
// params or result change in a way an older client would misread.
import pkg from "../../package.json" with { type: "json" };

export const VERSION: string = pkg.version;
export const PROTOCOL_VERSION = 1;
