// termd/client: what programs import to drive a termd daemon.
export { Client, connect, ConnectionClosedError, defaultTarget } from "./client.ts";
export { isDaemonUrl } from "./daemon-url.ts";
export { RpcError } from "../protocol/errors.ts";
export { defaultSocketPath } from "../protocol/paths.ts";
export type * from "../protocol/schemas.ts";
export type { Methods, MethodName, ParamsOf, ResultOf } from "../protocol/methods.ts";
