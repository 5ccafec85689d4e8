import { test, expect } from "bun:test";
import { launch } from "termd/testing";

test("take a screenshot", async () => {
  await using t = await launch(["bash", "--norc", "--noprofile"], { env: { PS1: "$ " } });
  await t.waitForText("$ ");
  await t.type("foo");

  await expect(t).toShowText("foo");
  await expect(t).toMatchScreenSnapshot();
});
