// Two places where xterm.js departs from xterm and alacritty, which programs and interminai's
// users rely on:
// - CSI n S (scroll up) drops the lines it scrolls off; here, with the scroll region the whole
//   normal screen, they go into the scrollback as a linefeed at the bottom would put them.
// - CSI n b (REP) repeats nothing once any other sequence came after the character (xterm.js
//   forgets it); here an SGR in between does not matter: `X ESC[1m ESC[3b` gives XXXX. The
//   character repeated is the one left of the cursor.
// Both reach into xterm.js internals (as Screen.writeSync does); xterm-gaps.test.ts checks them.
import type { Terminal } from "@xterm/headless";

interface Core {
  scroll(eraseAttr: unknown, isWrapped?: boolean): void;
  _bufferService: { buffer: CoreBuffer; buffers: { normal: CoreBuffer } };
  _inputHandler: { _eraseAttrData(): unknown; _parser: { precedingJoinState: number } };
}
interface CoreBuffer {
  scrollTop: number;
  scrollBottom: number;
  x: number;
  ybase: number;
  y: number;
  lines: { get(i: number): { getWidth(x: number): number } | undefined };
}

const count = (params: (number | number[])[]) => (typeof params[0] === "number" && params[0] > 0 ? params[0] : 1);

export function patchXtermGaps(term: Terminal): void {
  const core = (term as unknown as { _core: Core })._core;
  term.parser.registerCsiHandler({ final: "S" }, (params) => {
    const buf = core._bufferService.buffer;
    if (buf !== core._bufferService.buffers.normal || buf.scrollTop !== 0 || buf.scrollBottom !== term.rows - 1) return false;
    const attr = core._inputHandler._eraseAttrData();
    for (let n = Math.min(count(params), term.rows); n > 0; n--) core.scroll(attr);
    return true;
  });
  term.parser.registerCsiHandler({ final: "b" }, () => {
    const parser = core._inputHandler._parser;
    const buf = core._bufferService.buffer;
    if (parser.precedingJoinState !== 0 || buf.x === 0) return false;
    const line = buf.lines.get(buf.ybase + buf.y);
    let x = Math.min(buf.x, term.cols) - 1;
    while (x > 0 && line?.getWidth(x) === 0) x--; // the second half of a wide character
    const width = line?.getWidth(x) ?? 0;
    // REP reads only the width out of this state (UnicodeService's layout: width in bits 1-2).
    if (width > 0) parser.precedingJoinState = width << 1;
    return false;
  });
}
