import { RpcError } from "../../protocol/errors.ts";
import { InputSchema } from "../../protocol/schemas.ts";
import { command } from "../command.ts";
import { encodeKeys } from "../../terminal/keys.ts";
import { encodeMouse } from "../../terminal/mouse.ts";
import { safeSubmit } from "../../session/submit.ts";

export default command({
  name: "session.input",
  params: InputSchema,
  exec: async (p, { daemon, signal, conn }) => {
    const s = daemon.store.get(p.session);
    if (conn.subscription(s)?.readOnly) throw new RpcError("UNAUTHORIZED", `this connection is attached to ${s.name} read-only`);
    if (p.submit && p.text !== undefined) return { bytes: await safeSubmit(s, p.text, signal) };
    let data: string | Uint8Array;
    if (p.keys !== undefined)
      data = encodeKeys(p.keys, { applicationCursor: s.modes.application_cursor, kittyFlags: s.modes.kitty_keyboard });
    else if (p.paste !== undefined)
      data = s.modes.bracketed_paste ? `\x1b[200~${p.paste.replaceAll("\x1b[201~", "")}\x1b[201~` : p.paste;
    else if (p.base64 !== undefined) data = Buffer.from(p.base64, "base64");
    else if (p.mouse !== undefined) data = encodeMouse(p.mouse, s.modes, s.size);
    else data = p.text ?? "";
    return { bytes: await s.input(data, p.timeout_ms, signal) };
  },
});
