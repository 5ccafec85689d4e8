// Tests that run at the same time never share a session: each launch is a session of its own,
// whether the tests run concurrently (test.concurrent) or one test launches several at once.
import { expect, test } from "bun:test";
import { launch, type Terminal } from "termd/testing";

const BASH = ["bash", "--norc", "--noprofile"];
const sessions = new Set<string>();

/** A shell that echoes `word` and checks that its screen shows only its own. */
async function own(t: Terminal, word: string, other: string): Promise<void> {
  sessions.add(t.session);
  await t.waitForText("$ ");
  await t.submit(`echo ${word}-$((1+1))`, { waitFor: `${word}-2` });
  await expect(t).not.toShowText(other, { timeout: 100 });
}

test.concurrent("concurrent test one has its own terminal", async () => {
  await using t = await launch(BASH, { env: { PS1: "$ " } });
  await own(t, "alpha", "beta");
});

test.concurrent("concurrent test two has its own terminal", async () => {
  await using t = await launch(BASH, { env: { PS1: "$ " } });
  await own(t, "beta", "alpha");
});

test("the concurrent tests had a session each", () => {
  expect(sessions.size).toBe(2);
});

test("one test launches two terminals at once; each gets its own session and screen", async () => {
  const [a, b] = await Promise.all([launch(BASH, { env: { PS1: "A$ " } }), launch(BASH, { env: { PS1: "B$ " } })]);
  await using _a = a;
  await using _b = b;
  expect(a.session).not.toBe(b.session);
  // Each shell at its prompt first: a line typed before it would be echoed ahead of the prompt.
  await Promise.all([a.waitForText("A$ "), b.waitForText("B$ ")]);
  // Each waits for its shell's next prompt, which comes after the output.
  await Promise.all([a.submit("echo from-a", { waitFor: /^A\$ $/ }), b.submit("echo from-b", { waitFor: /^B\$ $/ })]);
  expect((await a.screen()).text).toBe("A$ echo from-a\nfrom-a\nA$");
  expect((await b.screen()).text).toBe("B$ echo from-b\nfrom-b\nB$");
});
