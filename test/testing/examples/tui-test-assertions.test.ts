import { test, expect } from "bun:test";
import { launch } from "termd/testing";

test("make a regex assertion", async () => {
  await using t = await launch(["bash", "--norc", "--noprofile"]);
  await t.submit("ls -l");

  await expect(t).toShowText(/total [0-9]+/);
});
