// What a daemon runs sessions with: the session store and the pools of threads their programs and
// screens run on. daemon.ts loads this file and makes them with the first use (a session created,
// listed or restored): the session machinery's modules, with the method handlers that use them, are
// ~2 MB of the memory of a daemon that never ran a session.
import { PtyPool } from "../pty/pty-pool.ts";
import { SessionStore, type StoreOptions } from "../session/store.ts";
import { ScreenPool } from "../terminal/screen-pool.ts";

export interface SessionLayer {
  readonly store: SessionStore;
  readonly screens: ScreenPool;
  readonly ptys: PtyPool;
}

/** The store's options but the pools, and the pools' own (`termd daemon --screen-workers` and the like). */
export interface SessionLayerOptions extends Omit<StoreOptions, "pool" | "ptys"> {
  screenWorkers?: number;
  screenParkMs?: number;
  ptyWorkers?: number;
}

export function makeSessionLayer(opts: SessionLayerOptions): SessionLayer {
  const { screenWorkers, screenParkMs, ptyWorkers, ...storeOptions } = opts;
  const screens = new ScreenPool(storeOptions.timers, screenWorkers, screenParkMs);
  const ptys = new PtyPool(storeOptions.timers, ptyWorkers);
  return { store: new SessionStore({ ...storeOptions, pool: screens, ptys }), screens, ptys };
}
