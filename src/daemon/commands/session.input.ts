import { InputSchema, type InputInput, type SubmitReport } from "../../protocol/schemas.ts";
import { sessionCommand, type Target } from "../command.ts";
import { checkTarget } from "../target.ts";
import { asPendingWait } from "../connection-limits.ts";
import { encodeKeys, pasteBytes } from "../../terminal/keys.ts";
import { encodeMouse } from "../../terminal/mouse.ts";
import { safeSubmit } from "../../session/submit.ts";
import { baselineOf } from "../../session/baseline.ts";
import { promptBeforeLine } from "../../session/shell-ready.ts";
import type { ProgramStream } from "../../session/stream.ts";

async function write(s: ProgramStream, p: InputInput, signal: AbortSignal): Promise<{ bytes: number; submit?: SubmitReport }> {
  if (p.submit && p.text !== undefined) {
    const { bytes, ...submit } = await safeSubmit(s, p.text, signal, p.timeout_ms, p.secret === true);
    return { bytes, submit };
  }
  let data: string | Uint8Array;
  if (p.keys !== undefined)
    data = encodeKeys(p.keys, { applicationCursor: s.stream.modes.application_cursor, kittyFlags: s.stream.modes.kitty_keyboard });
  else if (p.paste !== undefined) data = pasteBytes(p.paste, s.stream.modes.bracketed_paste);
  else if (p.base64 !== undefined) data = Buffer.from(p.base64, "base64");
  else if (p.mouse !== undefined) data = encodeMouse(p.mouse, s.stream.modes, s.stream.size);
  else data = p.text ?? "";
  return { bytes: await s.input(data, p.timeout_ms, signal, p.secret === true) };
}

const TARGET: Target = { running: true, write: "input", typing: true };

export default sessionCommand({
  name: "session.input",
  params: InputSchema,
  target: TARGET,
  exec: async (p, ctx, s) => {
    const { signal } = ctx;
    // A line submitted to a shell that has just finished a command goes once its prompt is drawn
    // (and before the wait's baseline, which that prompt is then part of). Meanwhile the caller
    // may have gone (nothing is typed for nobody), the program ended, or a person taken it over.
    if (p.submit && p.text !== undefined) {
      await promptBeforeLine(s, s.commands, signal);
      signal.throwIfAborted();
      checkTarget(TARGET, s, ctx);
    }
    if (!p.wait) return write(s, p, signal);
    const conditions = p.wait;
    // A wait like session.wait's, so it counts against the same limit (refused before any byte goes out).
    return asPendingWait(ctx, async () => {
      // The wait is registered before the first byte goes out, against a screen that has caught up
      // with every earlier byte: an answer, however fast, lands after its baseline.
      const { changed, ...rest } = conditions;
      await s.stream.snapshot();
      const baseline = baselineOf(s, rest);
      // command_done, prompt: a command that ends (a prompt drawn) after this input's first byte, not before it.
      const since = rest.command_done || rest.prompt ? { since: s.stream.output.end } : {};
      const wait = s.waits.prepare(
        { session: p.session, ...rest, ...since, ...(changed ? { changed_from: baseline.hash } : {}) },
        signal,
        baseline,
      );
      let written: Awaited<ReturnType<typeof write>>;
      try {
        written = await write(s, p, signal);
      } catch (err) {
        wait.cancel();
        throw err;
      }
      wait.start();
      return { ...written, wait: await wait.result };
    });
  },
});
