// The process table this process uses: /proc on Linux, ps elsewhere. TERMD_PROCESSES=ps (or
// procfs) forces one, so the Linux test suite also runs the portable implementation.
import type { ProcessTable } from "./process-table.ts";
import { procfs } from "./procfs.ts";
import { psTable } from "./ps.ts";

export type { ProcessSnapshot, ProcessTable } from "./process-table.ts";

function pick(): ProcessTable {
  const forced = process.env.TERMD_PROCESSES;
  if (forced === "ps") return psTable;
  if (forced === "procfs") return procfs;
  if (forced) console.error(`termd: TERMD_PROCESSES=${forced} is neither ps nor procfs; using the platform's own`);
  return process.platform === "linux" ? procfs : psTable;
}

export const processes: ProcessTable = pick();
