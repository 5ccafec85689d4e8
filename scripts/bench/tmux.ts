// A tmux server of the bench's own, for the side-by-side figures.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { onCleanup } from "./cleanup.ts";
import { run } from "./helpers.ts";

export class Tmux {
  private static count = 0;
  readonly name = `termdbench${process.pid}x${Tmux.count++}`;
  private readonly dropCleanup: () => void;

  constructor() {
    this.dropCleanup = onCleanup(() => this.killServer());
  }

  /** kill-server leaves the socket file behind; remove it too. */
  private killServer(): void {
    run(["tmux", "-L", this.name, "kill-server"]);
    const uid = process.getuid?.() ?? 0;
    rmSync(join(process.env.TMUX_TMPDIR || "/tmp", `tmux-${uid}`, this.name), { force: true });
  }

  cmd(...args: string[]): { code: number; stdout: string; stderr: string } {
    return run(["tmux", "-L", this.name, "-f", "/dev/null", ...args]);
  }

  ok(...args: string[]): string {
    const r = this.cmd(...args);
    if (r.code !== 0) throw new Error(`tmux ${args.join(" ")}: ${r.stderr.trim() || `exit ${r.code}`}`);
    return r.stdout;
  }

  /**
   * Runs `commandOf(j)` for every j from `from` up to `to`, `per` commands to a tmux command line
   * (joined with ";"): one client spawn per session would time the spawning. Yields each result.
   */
  *chained(
    from: number,
    to: number,
    per: number,
    commandOf: (j: number) => string[],
  ): Generator<{ code: number; stdout: string; stderr: string }> {
    for (let i = from; i < to; i += per) {
      const args: string[] = [];
      for (let j = i; j < Math.min(to, i + per); j++) args.push(...(args.length ? [";"] : []), ...commandOf(j));
      yield this.cmd(...args);
    }
  }

  serverPid(): number {
    return Number(this.ok("display-message", "-p", "#{pid}").trim());
  }

  kill(): void {
    this.killServer();
    this.dropCleanup();
  }
}
