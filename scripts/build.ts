// bun run build: dist/termd, the whole program as one executable for this machine (Bun itself
// included, with its commit and target baked in), dist/interminai and dist/cp-console-server,
// symlinks to it, and dist/termd-client.mjs, the client-side commands as one file for Node ≥ 20
// or Bun. dist/release/ and dist/npm/ (npm run release, npm run pack) are left in place.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { buildCommit, buildDefines, compileTarget, ROOT } from "./compile.ts";
import { hostTarget } from "../src/package/targets.ts";

const dist = join(ROOT, "dist");
for (const f of ["termd", "interminai", "cp-console-server", "termd-client.mjs"]) rmSync(join(dist, f), { force: true });

const commit = buildCommit();
await compileTarget(hostTarget(), dist, commit);
const stub = Bun.spawn(
  [
    process.execPath,
    "build",
    "--target=node",
    "--format=esm",
    "--minify",
    ...buildDefines(commit, "node-client"),
    "src/cli/stub.ts",
    "--outfile",
    join(dist, "termd-client.mjs"),
  ],
  { cwd: ROOT, stdout: "inherit", stderr: "inherit" },
);
if ((await stub.exited) !== 0) throw new Error("bun build of dist/termd-client.mjs failed");
console.log("built dist/termd, dist/interminai and dist/cp-console-server (links to it) and dist/termd-client.mjs");
