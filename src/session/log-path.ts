// Where a session's output log is, apart from the pipeline that writes it (pipeline.ts): the
// daemon's handover check finds the logs without loading the session machinery.
import { join } from "node:path";

export function logPathOf(logDir: string, id: string): string {
  return join(logDir, `${id}.log`);
}
