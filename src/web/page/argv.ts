// A command line typed into the page's "New session" form, split into argv as a POSIX shell would
// split a simple command: blanks separate words, '…' keeps everything, "…" keeps all but \" \\ \$
// \`, a backslash outside quotes keeps the next character. No expansions: the daemon runs argv
// itself, so a person who wants pipes or variables types `sh -c '…'`.

export class CommandLineError extends Error {}

export function splitCommand(line: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === " " || c === "\t" || c === "\n") {
      if (word !== null) words.push(word);
      word = null;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new CommandLineError("a ' is not closed");
      word = (word ?? "") + line.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      word ??= "";
      for (i++; ; i++) {
        if (i >= line.length) throw new CommandLineError('a " is not closed');
        const d = line[i]!;
        if (d === '"') break;
        if (d === "\\" && i + 1 < line.length && '"\\$`'.includes(line[i + 1]!)) word += line[++i];
        else word += d;
      }
    } else if (c === "\\") {
      if (i + 1 >= line.length) throw new CommandLineError("a \\ ends the line");
      word = (word ?? "") + line[++i];
    } else word = (word ?? "") + c;
  }
  if (word !== null) words.push(word);
  return words;
}
