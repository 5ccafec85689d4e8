// The README's `termd/client` example, run as it stands against a private daemon: what a reader
// copies must work, and type only once the program is ready for it (python3 shows `6*7>>> 6*7`
// when the text goes before its prompt).
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, TestDaemon } from "./harness.ts";

async function clientExample(): Promise<string> {
  const md = await Bun.file(join(ROOT, "README.md")).text();
  const m = /From a program, with `termd\/client`:\s*```ts\n([\s\S]*?)```/.exec(md);
  if (!m) throw new Error("README.md has no termd/client example");
  return m[1]!;
}

test("the README's termd/client example types into python3 after its prompt and gets 42", async () => {
  await using d = await TestDaemon.start();
  const code = (await clientExample()).replace(`from "termd/client"`, `from ${JSON.stringify(join(ROOT, "src/client/index.ts"))}`);
  const file = join(d.dir, "example.ts");
  writeFileSync(file, code);
  const p = Bun.spawn([process.execPath, file], { env: d.env, stdout: "pipe", stderr: "pipe" });
  const [exit, err] = await Promise.all([p.exited, new Response(p.stderr).text()]);
  expect(err).toBe("");
  expect(exit).toBe(0);
  const c = await d.client();
  const { lines } = await c.call("session.screen", { session: "py" });
  expect(lines.slice(0, 3)).toEqual([">>> 6*7", "42", ">>> "]);
});
