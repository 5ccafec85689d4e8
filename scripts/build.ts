// bun run build: dist/termd, the whole program as one executable (Bun itself included),
// dist/interminai and dist/cp-console-server, symlinks to it, and dist/termd-client.mjs, the client-side commands as one
// file for Node ≥ 20 or Bun.
import { readdirSync, rmSync, mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dir, "..");
const dist = join(root, "dist");
rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });

const run = async (cmd: string[]) => {
  const p = Bun.spawn(cmd, { cwd: root, stdout: "inherit", stderr: "inherit" });
  if ((await p.exited) !== 0) throw new Error(`failed: ${cmd.join(" ")}`);
};

await run([process.execPath, "build", "--compile", "--minify", "--sourcemap", "src/cli/main.ts", "src/terminal/screen-worker.ts", "src/session/pty-worker.ts", "src/render/png-worker.ts", "--outfile", join(dist, "termd")]);
// --sourcemap puts the source maps inside the binary: a fault's stack names src/ files and lines.
// The copies it also writes beside it are not needed.
for (const f of readdirSync(dist)) if (f.endsWith(".map")) rmSync(join(dist, f));
await run([process.execPath, "build", "--target=node", "--format=esm", "--minify", "src/cli/stub.ts", "--outfile", join(dist, "termd-client.mjs")]);
// The same binary under interminai's name behaves as interminai (it reads the name it was run by).
symlinkSync("termd", join(dist, "interminai"));
// Under cp-console-server's name it is context-pilot's console server.
symlinkSync("termd", join(dist, "cp-console-server"));
console.log("built dist/termd, dist/interminai and dist/cp-console-server (links to it) and dist/termd-client.mjs");
