// Errors travel as data: handlers throw RpcError (or anything else); the dispatcher is the one
// place that turns them into JSON-RPC error objects. Application errors carry a readable name in
// error.data.code so clients never have to remember numbers.

export const JSONRPC = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
} as const;

/** Application error names and their numeric codes (JSON-RPC's server-error range). */
export const APP_CODES = {
  SESSION_NOT_FOUND: -32001,
  SESSION_NOT_RUNNING: -32002,
  NAME_TAKEN: -32003,
  TIMEOUT: -32004,
  PAYLOAD_TOO_LARGE: -32005,
  SPAWN_FAILED: -32006,
  NOT_A_SHELL: -32007,
  UNAUTHORIZED: -32008,
  /** exec.run on a shell that is already running one (TRL's SESSION_BUSY). */
  SESSION_BUSY: -32009,
  /** session.input to a program that has not read what it was sent (its unread input is bounded). */
  INPUT_NOT_READ: -32010,
  /** A named limit of the daemon is reached (termd daemon --max-sessions). */
  LIMIT_REACHED: -32011,
  /** A mouse event (session.input's mouse) for a program that asked for no mouse reporting. */
  MOUSE_NOT_ENABLED: -32012,
  /** Input, an in-shell exec.run, a resize or a take-over while another connection holds the session (take_over). */
  SESSION_HELD: -32013,
  /** system.handover: the daemon cannot be replaced in place, or the next binary failed its check; the daemon serves on. */
  HANDOVER_REFUSED: -32014,
  /** The daemon is being replaced in place (termd daemon restart): this connection closes; its sessions run on, connect again. */
  DAEMON_REPLACED: -32015,
} as const;

export type ErrorName =
  | keyof typeof APP_CODES
  | "PARSE_ERROR"
  | "INVALID_REQUEST"
  | "METHOD_NOT_FOUND"
  | "INVALID_PARAMS"
  | "INTERNAL_ERROR";

const CODE_OF: Record<ErrorName, number> = { ...JSONRPC, ...APP_CODES };

export interface WireError {
  code: number;
  message: string;
  data: { code: ErrorName; [key: string]: unknown };
}

export class RpcError extends Error {
  constructor(
    override readonly name: ErrorName,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }

  toWire(): WireError {
    return { code: CODE_OF[this.name], message: this.message, data: { ...this.details, code: this.name } };
  }

  static fromWire(e: WireError): RpcError {
    const { code, ...details } = e.data ?? { code: "INTERNAL_ERROR" };
    return new RpcError(code ?? "INTERNAL_ERROR", e.message, details);
  }
}

/** Anything thrown that is not an RpcError becomes a plain internal error; its stack stays here. */
export function toRpcError(err: unknown): RpcError {
  if (err instanceof RpcError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new RpcError("INTERNAL_ERROR", `internal error: ${message}`);
}
