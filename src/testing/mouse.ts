// The mouse as a test aims it: at a cell or at a text on the screen.
import type { InputInput } from "../protocol/schemas.ts";
import type { InputOptions } from "./wait-for.ts";

/** What a mouse event aims at: a cell, or a text (or RegExp) on the screen. */
export type MouseTarget = { row: number; col: number } | string | RegExp;

export interface MouseOptions extends InputOptions {
  shift?: boolean;
  alt?: boolean;
  ctrl?: boolean;
  /** How long to wait for a text target to show (default: the terminal's timeout). */
  timeout?: number;
  /** A text target in more than one place fails, naming each (default: the terminal's). */
  strict?: boolean;
}

export interface ClickOptions extends MouseOptions {
  button?: "left" | "middle" | "right";
  /** 2 for a double click. */
  count?: number;
}

export type MouseEventInput = NonNullable<InputInput["mouse"]>;

/** The fields that are set: the schema's optional fields take no `undefined`. */
export function defined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
