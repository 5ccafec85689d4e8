// Who runs this process, by name: what `termd attach --take-over` says holds a session. Bun's
// os.userInfo().username is the string "unknown" where $USER is unset (a container, a systemd
// unit), so it is not asked: $USER, $LOGNAME, then the passwd file's entry for the uid, then the
// uid itself. The passwd file is read, not NSS: a name only a directory service knows comes out
// as the uid.
import { readFileSync } from "node:fs";

/** The login name of uid `uid` in a passwd file's text (`name:x:uid:gid:...` lines), or null. */
export function passwdName(passwd: string, uid: number): string | null {
  for (const line of passwd.split("\n")) {
    const [name, , id] = line.split(":");
    if (name && id !== undefined && /^\d+$/.test(id) && Number(id) === uid) return name;
  }
  return null;
}

/** This process's user: a name where one is known, else the uid's number; never "unknown". */
export function userName(env: NodeJS.ProcessEnv = process.env, passwdPath = "/etc/passwd"): string {
  const named = env.USER || env.LOGNAME;
  if (named) return named;
  const uid = process.getuid?.();
  if (uid === undefined) return "";
  let passwd = "";
  try {
    passwd = readFileSync(passwdPath, "utf8");
  } catch {}
  return passwdName(passwd, uid) ?? String(uid);
}
