// xterm.js runs some sequences' counts as loops: `CSI 99999999 L` (insert lines) takes minutes
// and `CSI 2147483647 b` (repeat the last character) over a minute, so one line of output could
// hang the daemon. A count past what can change the screen is cut down to one that has the same
// effect before xterm sees it: more lines than the screen has act like a screenful, more
// characters than a row like a row, and a repeat past the screen and scrollback like one that
// fills them and ends at the same column.
import type { Terminal } from "@xterm/headless";

type Handler = (params: { params: Int32Array | number[]; length: number }) => boolean;

interface Core {
  _inputHandler: Record<string, Handler>;
}

/**
 * Registers the guards. xterm runs the handler registered last first, so register these before
 * any other handler for the same sequences: those then see the sequence first, and these catch
 * whatever they leave to xterm.
 */
export function boundCounts(term: Terminal, scrollback: number): void {
  const handlers = (term as unknown as { _core: Core })._core._inputHandler;
  const rows = () => term.rows;
  const cols = () => term.cols;
  const repeat = (n: number) => {
    const fill = (term.rows + scrollback + 1) * term.cols;
    return n <= fill ? n : fill + ((n - fill) % term.cols);
  };
  const bounded: [{ intermediates?: string; final: string }, string, (n: number) => number][] = [
    [{ final: "L" }, "insertLines", (n) => Math.min(n, rows())],
    [{ final: "M" }, "deleteLines", (n) => Math.min(n, rows())],
    [{ final: "S" }, "scrollUp", (n) => Math.min(n, rows())],
    [{ final: "T" }, "scrollDown", (n) => Math.min(n, rows())],
    [{ final: "@" }, "insertChars", (n) => Math.min(n, cols())],
    [{ final: "P" }, "deleteChars", (n) => Math.min(n, cols())],
    [{ final: "X" }, "eraseChars", (n) => Math.min(n, cols())],
    [{ final: "I" }, "cursorForwardTab", (n) => Math.min(n, cols())],
    [{ final: "Z" }, "cursorBackwardTab", (n) => Math.min(n, cols())],
    [{ intermediates: " ", final: "@" }, "scrollLeft", (n) => Math.min(n, cols())],
    [{ intermediates: " ", final: "A" }, "scrollRight", (n) => Math.min(n, cols())],
    [{ intermediates: "'", final: "}" }, "insertColumns", (n) => Math.min(n, cols())],
    [{ intermediates: "'", final: "~" }, "deleteColumns", (n) => Math.min(n, cols())],
    [{ final: "b" }, "repeatPrecedingCharacter", repeat],
  ];
  for (const [id, method, clamp] of bounded) {
    const run = handlers[method];
    if (typeof run !== "function") continue; // a future xterm without it: nothing to guard
    term.parser.registerCsiHandler(id, (params) => {
      const n = typeof params[0] === "number" ? params[0] : 0;
      const bound = clamp(n);
      if (n <= bound) return false; // xterm's own handler runs as usual
      return run.call(handlers, { params: [bound], length: 1 });
    });
  }
}
