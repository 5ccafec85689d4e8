// `input --text` escapes, processed left to right as interminai does: \n \r \t \a \b \f \v \\
// \e \E \xHH; any other backslash pair is kept as it is, a lone trailing backslash too. \xHH of
// 0x80 and above is sent as the UTF-8 of U+00HH (interminai pushes the byte as a char).
import { Failure } from "./args.ts";

const SIMPLE: Record<string, string> = {
  n: "\n",
  r: "\r",
  t: "\t",
  a: "\x07",
  b: "\b",
  f: "\f",
  v: "\v",
  "\\": "\\",
  e: "\x1b",
  E: "\x1b",
};

export function expandEscapes(s: string): string {
  const chars = [...s];
  let out = "";
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (c !== "\\") {
      out += c;
      continue;
    }
    const next = chars[++i];
    if (next === undefined) out += "\\";
    else if (next in SIMPLE) out += SIMPLE[next];
    else if (next === "x") {
      const h1 = chars[++i];
      const h2 = chars[++i];
      if (h1 === undefined || h2 === undefined) throw new Failure("Error: incomplete \\x escape");
      if (!/^[0-9a-fA-F]{2}$/.test(h1 + h2)) throw new Failure(`Error: invalid hex escape: \\x${h1}${h2}`);
      out += String.fromCharCode(parseInt(h1 + h2, 16));
    } else out += "\\" + next;
  }
  return out;
}
