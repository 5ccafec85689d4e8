// The screens a pool's threads hold, as the daemon's thread keeps them (the screen workers',
// screen-pool.ts, and the pty workers', pty/pty-pool.ts): by id, for the messages that name one,
// and by thread, so that a dead thread's screens move to the one that replaces it.
import { nextScreenId, RemoteScreen, type ScreenChannel, type ScreenOpening, type ScreenOwner } from "./remote-screen.ts";

/** The screens one thread holds. */
export type ScreenSet = Set<RemoteScreen>;

export class HeldScreens {
  private readonly byId = new Map<number, RemoteScreen>();
  /** The set each screen is in: its thread's, until it moves. */
  private readonly home = new Map<RemoteScreen, ScreenSet>();

  /** Opens a blank screen on the thread whose screens are `on`, reached through `channel`. */
  open(on: ScreenSet, channel: ScreenChannel, opening: ScreenOpening, owner: ScreenOwner): RemoteScreen {
    const screen: RemoteScreen = new RemoteScreen(nextScreenId(), channel, opening, owner, () => {
      this.byId.delete(screen.id);
      this.home.get(screen)?.delete(screen);
      this.home.delete(screen);
    });
    on.add(screen);
    this.byId.set(screen.id, screen);
    this.home.set(screen, on);
    return screen;
  }

  get(id: number): RemoteScreen | undefined {
    return this.byId.get(id);
  }

  /** Moves a dead thread's screens to its replacement, each reopened there blank (its owner rebuilds it). */
  move(from: ScreenSet, to: ScreenSet, channel: ScreenChannel): void {
    for (const screen of from) {
      to.add(screen);
      this.home.set(screen, to);
      screen.moveTo(channel);
    }
    from.clear();
  }
}

/** A thread's screens and how many of them are parked (none for a thread not started). */
export function countScreens(on: ScreenSet | undefined): { screens: number; parked: number } {
  return { screens: on?.size ?? 0, parked: on ? [...on].filter((s) => s.parked).length : 0 };
}
