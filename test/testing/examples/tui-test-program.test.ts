import { test, expect } from "bun:test";
import { launch } from "termd/testing";

test("git shows usage message", async () => {
  await using t = await launch(["git"]);
  await expect(t).toShowText(/^usage: git/, { scrollback: true });
});
