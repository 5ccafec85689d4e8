// The HTTP transport's bearer token, where both sides find it: TERMD_TOKEN, or the state dir's
// http-token file (mode 0600), generated on first use. The daemon's --http checks it; `termd token`
// prints it.
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const TOKEN_FILE = "http-token";

export interface Token {
  value: string;
  /** Where it came from, for the daemon's log line (never the value itself). */
  source: "TERMD_TOKEN" | string;
}

/** TERMD_TOKEN, else the state dir's token file, written (0600) with a new random token when missing. */
export function loadToken(stateDir: string, env: NodeJS.ProcessEnv = process.env): Token {
  if (env.TERMD_TOKEN) return { value: env.TERMD_TOKEN, source: "TERMD_TOKEN" };
  const path = join(stateDir, TOKEN_FILE);
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  try {
    // "wx": two first starts at once must not each write a different token.
    writeFileSync(path, randomBytes(32).toString("base64url") + "\n", { mode: 0o600, flag: "wx" });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
  // A file someone loosened is tightened again: the token is as good as a login.
  chmodSync(path, 0o600);
  const value = readFileSync(path, "utf8").trim();
  if (!value) throw new Error(`${path} is empty: delete it to have a new token generated, or set TERMD_TOKEN`);
  return { value, source: path };
}
