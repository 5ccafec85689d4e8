// `termd daemon restart` without --stop-sessions: the running daemon hands itself over to this
// build (or --binary PATH) in place (daemon/handover.ts), keeping every session running. The
// daemon checks the next binary first and refuses, serving on, when it cannot take over; the
// command then says why and exits 1.
import { connect, type Client } from "../../client/client.ts";
import { RpcError } from "../../protocol/errors.ts";
import { describeBuild } from "../../protocol/version.ts";
import { selfCommand } from "../../platform/self-command.ts";
import { EXIT, type CliContext } from "../command.ts";

/** How long the next image may take to answer (it takes every session over first). */
const ANSWER_MS = 60_000;

/**
 * The daemon's answer once the connection that asked has closed (the exec closes it, and so does a
 * daemon whose exec failed): a new image, or the same one serving on. The socket stays listening
 * across the exec, so a connect waits in its queue meanwhile.
 */
async function pingAfterClose(asked: Client, socketPath: string, deadline: number) {
  const timer = new Promise<void>((r) => setTimeout(r, Math.max(0, deadline - Date.now())).unref?.());
  await Promise.race([asked.closed, timer]);
  while (Date.now() < deadline) {
    let c: Client | undefined;
    try {
      c = await connect(socketPath);
      return await c.call("system.ping");
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    } finally {
      c?.close();
    }
  }
  return null;
}

/**
 * Hands the daemon on `ctx.socketPath` over to `binary` (default: this CLI's own build). Returns
 * null when no daemon answers (the caller starts one).
 */
export async function restartInPlace(ctx: CliContext, binary: string | undefined): Promise<number | null> {
  let client: Client;
  try {
    client = await connect(ctx.socketPath);
  } catch {
    return null;
  }
  const { resolve } = await import("node:path");
  try {
    const before = await client.call("system.ping");
    let result: { to: Parameters<typeof describeBuild>[0]; sessions: number };
    try {
      result = await client.call("system.handover", { command: binary !== undefined ? [resolve(binary)] : selfCommand() });
    } catch (err) {
      if (!(err instanceof RpcError)) throw err;
      if (err.name === "METHOD_NOT_FOUND") {
        ctx.err(
          `termd daemon restart: the daemon on ${ctx.socketPath} is ${describeBuild(before)}, too old to hand its sessions over; \`termd daemon restart --stop-sessions\` replaces it, stopping them`,
        );
        return EXIT.FAILURE;
      }
      if (err.name !== "HANDOVER_REFUSED") throw err;
      ctx.err(`termd daemon restart: ${err.message}`);
      return EXIT.FAILURE;
    }
    const ping = await pingAfterClose(client, ctx.socketPath, Date.now() + ANSWER_MS);
    if (!ping || ping.started_at === before.started_at) {
      const state = ping ? "serves on as it was (its exec failed)" : "does not answer";
      ctx.err(`termd daemon restart: the daemon (pid ${before.pid}) ${state}; its log says why`);
      return EXIT.FAILURE;
    }
    const kept = result.sessions === 1 ? "1 running session kept" : `${result.sessions} running sessions kept`;
    ctx.out(`termd daemon restart: ${describeBuild(ping)} runs on ${ctx.socketPath} (pid ${ping.pid}, ${kept})`);
    return EXIT.OK;
  } finally {
    client.close();
  }
}
