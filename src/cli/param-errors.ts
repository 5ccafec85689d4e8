// The daemon's INVALID_PARAMS names protocol fields (settle_ms, rows) in valibot's words; a person
// at the command line typed flags (--settle, --rows). This puts the first in the second's terms.

/** Protocol fields the CLI's flags fill, by their flag. */
const FLAG_OF: Record<string, string> = {
  settle_ms: "--settle",
  timeout_ms: "--timeout",
  grace_ms: "--grace",
  changed_from: "--changed-from",
  rows: "--rows",
  cols: "--cols",
  scrollback: "--scrollback",
  "size.rows": "--rows",
  "size.cols": "--cols",
  term: "--term",
  cwd: "--cwd",
  name: "--name",
  regex: "--regex",
  text: "--text",
  gone: "--gone",
  exit: "--exit",
  activity: "--activity",
  command_done: "--command-done",
  prompt: "--prompt",
  fresh: "--fresh",
  since: "--since",
};

/** The fields a message lists ("give at least one of text, regex, …") named as the flags that fill them. */
function listedAsFlags(message: string): string {
  const m = /^(.*one of )(.+)$/.exec(message);
  if (!m) return message;
  const flags = m[2]!.split(", ").map((f) => FLAG_OF[f] ?? f);
  return m[1] + flags.join(", ");
}

interface Issue {
  path: string;
  expected: string | null;
  received: string;
  message: string;
}

function bound(expected: string | null): string | null {
  const m = /^(>=|<=|>|<)\s*(.+)$/.exec(expected ?? "");
  if (!m) return null;
  return { ">=": "at least", "<=": "at most", ">": "more than", "<": "less than" }[m[1]!]! + " " + m[2];
}

/** The CLI's wording of a daemon INVALID_PARAMS, when its details say which fields; null otherwise. */
export function inFlagTerms(details: Record<string, unknown>): string | null {
  const issues = details.issues as Issue[] | undefined;
  if (!Array.isArray(issues) || issues.length === 0) return null;
  const parts = issues.map((i) => {
    // A check on the whole request (a screen too big in cells) says it in its own words.
    if (!i.path) return listedAsFlags(i.message);
    const flag = FLAG_OF[i.path] ?? i.path;
    const b = bound(i.expected);
    if (b) return `${flag} must be ${b} (got ${i.received})`;
    // A rule with words of its own ("name must not start with '-'") says them about the flag.
    const field = i.path.split(".").at(-1)!;
    if (i.message.startsWith(`${field} `)) return `${flag}${i.message.slice(field.length)} (got ${i.received})`;
    return `${flag} is not valid here (got ${i.received})`;
  });
  return parts.join("; ");
}
