// The kitty keyboard protocol's flag stacks (https://sw.kovidgoyal.net/kitty/keyboard-protocol/):
// CSI > flags u pushes, CSI < n u pops, CSI = flags ; mode u changes the top, CSI ? u asks for it.
// The main and the alternate screen keep separate stacks, as the spec asks, so a full-screen app
// that pushes flags on the alternate screen leaves the shell's keys alone when it exits.
// Departure: kitty evicts the oldest entry of a full stack; so do we, at MAX_DEPTH.

export const MAX_DEPTH = 8;

/** Bit 1 of the flags: "disambiguate escape codes", the one that makes modified keys CSI u. */
export const KITTY_DISAMBIGUATE = 1;

export class KittyKeyboard {
  private main: number[] = [];
  private alt: number[] = [];

  private stack(alternate: boolean): number[] {
    return alternate ? this.alt : this.main;
  }

  /** The flags in force: the top of the screen's stack, 0 when it is empty. */
  flags(alternate: boolean): number {
    const s = this.stack(alternate);
    return s.length > 0 ? s[s.length - 1]! : 0;
  }

  push(flags: number, alternate: boolean): void {
    const s = this.stack(alternate);
    s.push(flags & 0x1f);
    if (s.length > MAX_DEPTH) s.shift();
  }

  pop(n: number, alternate: boolean): void {
    const s = this.stack(alternate);
    s.splice(Math.max(0, s.length - Math.max(1, n)));
  }

  /** mode 1: set to flags, 2: add the bits, 3: remove them. An empty stack gets one entry. */
  set(flags: number, mode: number, alternate: boolean): void {
    const s = this.stack(alternate);
    const cur = this.flags(alternate);
    const next = mode === 2 ? cur | flags : mode === 3 ? cur & ~flags : flags;
    if (s.length === 0) s.push(next & 0x1f);
    else s[s.length - 1] = next & 0x1f;
  }

  reset(): void {
    this.main = [];
    this.alt = [];
  }

  /** Both stacks, as a message carries them (a program restarted on another thread goes on from them). */
  save(): KittyStacks {
    return { main: [...this.main], alt: [...this.alt] };
  }

  restore(s: KittyStacks): void {
    this.main = [...s.main];
    this.alt = [...s.alt];
  }
}

export interface KittyStacks {
  main: number[];
  alt: number[];
}
