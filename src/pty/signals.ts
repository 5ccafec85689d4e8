// Signal names and numbers as users write them: "SIGINT", "INT", "int", "2".
import { constants } from "node:os";
import { quoted, TermdError } from "../terminal/errors.ts";

const BY_NUMBER = new Map<number, string>();
for (const [name, num] of Object.entries(constants.signals)) if (!BY_NUMBER.has(num)) BY_NUMBER.set(num, name);

export function parseSignal(sig: string | number): { name: NodeJS.Signals; number: number } {
  let num: number | undefined;
  if (typeof sig === "number" || /^\d+$/.test(sig)) num = Number(sig);
  else {
    const upper = sig.toUpperCase();
    const name = upper.startsWith("SIG") ? upper : `SIG${upper}`;
    num = (constants.signals as Record<string, number>)[name];
  }
  const name = num === undefined ? undefined : BY_NUMBER.get(num);
  if (num === undefined || !name) throw new TermdError("BAD_ARGUMENT", `unknown signal ${typeof sig === "string" ? quoted(sig) : sig}`);
  return { name: name as NodeJS.Signals, number: num };
}

export function signalNumber(name: string): number {
  return (constants.signals as Record<string, number>)[name] ?? 0;
}
