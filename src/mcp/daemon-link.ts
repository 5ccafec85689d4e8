// The MCP server's connection to the user's daemon: opened on the first tool call (starting the
// daemon if none answers, as the CLI does) and opened again after the daemon went away, so a
// long-lived agent host survives a daemon restart.
import { NotSentError, type Client } from "../client/client.ts";
import type { MethodName, ParamsOf, ResultOf } from "../protocol/methods.ts";

export class DaemonLink {
  private client: Promise<Client> | null = null;

  constructor(
    private readonly socketPath: string,
    private readonly connect: (socketPath: string) => Promise<Client>,
  ) {}

  private open(): Promise<Client> {
    if (!this.client) {
      const opening = this.connect(this.socketPath);
      this.client = opening;
      opening.then(
        (c) => void c.closed.then(() => this.client === opening && (this.client = null)),
        () => this.client === opening && (this.client = null),
      );
    }
    return this.client;
  }

  async call<M extends MethodName>(method: M, params?: ParamsOf<M>): Promise<ResultOf<M>> {
    try {
      return await (await this.open()).call(method, params);
    } catch (err) {
      // A connection that closed before this call was written is retried once on a new one; a
      // call that was sent may have run (typed, started a program), so it is never sent twice.
      if (!(err instanceof NotSentError)) throw err;
      this.client = null;
      return (await this.open()).call(method, params);
    }
  }

  close(): void {
    void this.client?.then(
      (c) => c.close(),
      () => {},
    );
    this.client = null;
  }
}
