// The daemon's connections pace their requests as protocol/pacing.ts says, logging a request that failed.
import { settledOrNextTurn as paced } from "../protocol/pacing.ts";
import { clientLog } from "../session/client-log.ts";

export const settledOrNextTurn = (p: Promise<unknown>): Promise<unknown> => paced(p, (err) => clientLog.log("termd: request failed:", err));
