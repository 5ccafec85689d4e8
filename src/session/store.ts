// The registry of sessions: ids, unique names, lookup by either, and disposal. The only owner of
// Session objects; everything else looks them up here.
import { join } from "node:path";
import { RpcError } from "../protocol/errors.ts";
import type { CreateInput } from "../protocol/schemas.ts";
import { Session } from "./session.ts";

export interface StoreOptions {
  stateDir: string;
  /** Environment every session starts from (the daemon's own, normally). */
  baseEnv: Record<string, string>;
}

export class SessionStore {
  private readonly byId = new Map<string, Session>();

  constructor(private readonly opts: StoreOptions) {}

  private newId(): string {
    for (;;) {
      const id = crypto.randomUUID().replaceAll("-", "").slice(0, 8);
      if (!this.byId.has(id) && !this.findByName(id)) return id;
    }
  }

  private findByName(name: string): Session | undefined {
    for (const s of this.byId.values()) if (s.name === name) return s;
    return undefined;
  }

  create(p: NonNullable<CreateInput>): Session {
    if (p.name !== undefined && this.findByName(p.name)) {
      throw new RpcError("NAME_TAKEN", `a session named ${p.name} exists already`, { name: p.name });
    }
    const id = this.newId();
    const name = p.name ?? id;
    const env: Record<string, string> = { ...this.opts.baseEnv, ...p.env, TERMD_SESSION: name };
    const command = p.command ?? [env.SHELL || "/bin/sh"];
    const session = new Session({
      id,
      name,
      command,
      cwd: p.cwd ?? env.HOME ?? "/",
      env,
      size: { rows: p.rows ?? 24, cols: p.cols ?? 80 },
      scrollback: p.scrollback ?? 1000,
      term: p.term ?? "xterm-256color",
      logDir: join(this.opts.stateDir, "logs"),
    });
    this.byId.set(id, session);
    return session;
  }

  /** By id first, then by name. */
  get(ref: string): Session {
    const s = this.byId.get(ref) ?? this.findByName(ref);
    if (!s) throw new RpcError("SESSION_NOT_FOUND", `no session ${JSON.stringify(ref)}`, { session: ref });
    return s;
  }

  list(): Session[] {
    return [...this.byId.values()];
  }

  remove(s: Session): void {
    this.byId.delete(s.id);
    s.dispose();
  }

  async stopAll(graceMs: number): Promise<void> {
    await Promise.all(this.list().map((s) => s.stop(graceMs)));
  }

  killAll(): void {
    for (const s of this.byId.values()) s.kill();
  }
}
