// Which termd the private daemon runs: `$TERMD_BIN`; under Bun, this checkout's source; else a
// compiled termd: this checkout's dist/termd, one beside a bundled termd/testing, the installed npm
// package's platform binary, or `termd` on the PATH. Node cannot run the TypeScript source, so
// under vitest and node:test it is a binary.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { locateBinary } from "../package/binary.ts";

const HERE = dirname(fileURLToPath(import.meta.url));

export function termdCommand(): string[] {
  if (process.env.TERMD_BIN) return [process.env.TERMD_BIN];
  const main = join(HERE, "..", "cli", "main.ts");
  if (process.versions.bun && existsSync(main)) return [process.execPath, main];
  for (const bin of [join(HERE, "..", "..", "dist", "termd"), join(HERE, "termd")]) if (existsSync(bin)) return [bin];
  const installed = locateBinary();
  if ("path" in installed) return [installed.path];
  const onPath = (process.env.PATH ?? "").split(":").some((dir) => dir && existsSync(join(dir, "termd")));
  if (!onPath) throw new Error(`termd/testing cannot start a daemon: ${installed.problem}`);
  return ["termd"];
}
