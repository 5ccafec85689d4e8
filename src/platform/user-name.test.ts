import { expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { passwdName, userName } from "./user-name.ts";

const uid = process.getuid!();

test("a passwd file's entry for the uid names it; none, a comment or a bad line do not", () => {
  const passwd = `# comment\nbroken\nroot:x:0:0:root:/root:/bin/bash\nana:x:${uid + 1000}:100::/home/ana:/bin/sh\n`;
  expect(passwdName(passwd, 0)).toBe("root");
  expect(passwdName(passwd, uid + 1000)).toBe("ana");
  expect(passwdName(passwd, 4242_4242)).toBeNull();
  expect(passwdName("", 0)).toBeNull();
});

test('$USER, then $LOGNAME, then the passwd entry, then the uid: never Bun\'s "unknown"', () => {
  const dir = mkdtempSync(join(tmpdir(), "termd-user-"));
  try {
    const passwd = join(dir, "passwd");
    writeFileSync(passwd, `someone:x:${uid}:0::/:/bin/sh\n`);
    expect(userName({ USER: "u", LOGNAME: "l" }, passwd)).toBe("u");
    expect(userName({ LOGNAME: "l" }, passwd)).toBe("l");
    expect(userName({ USER: "" }, passwd)).toBe("someone");
    writeFileSync(passwd, "other:x:99999999:0::/:/bin/sh\n");
    expect(userName({}, passwd)).toBe(String(uid));
    expect(userName({}, join(dir, "missing"))).toBe(String(uid));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
