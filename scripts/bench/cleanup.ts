// What the bench started, undone on exit, on error and on ^C: daemons, tmux servers, temp dirs.
/** Undo actions, newest first. Each must be safe to run twice and must not throw. */
const cleanups: { sync: () => void; async?: () => Promise<void> }[] = [];
let cleanedUp = false;

export function onCleanup(sync: () => void, async?: () => Promise<void>): () => void {
  const entry = { sync, async };
  cleanups.push(entry);
  return () => {
    const i = cleanups.indexOf(entry);
    if (i >= 0) cleanups.splice(i, 1);
  };
}

export async function cleanupAll(): Promise<void> {
  while (cleanups.length) {
    const c = cleanups.pop()!;
    try {
      if (c.async) await c.async();
      else c.sync();
    } catch {
      try {
        c.sync();
      } catch {}
    }
  }
  cleanedUp = true;
}

function cleanupAllSync(): void {
  if (cleanedUp) return;
  while (cleanups.length) {
    try {
      cleanups.pop()!.sync();
    } catch {}
  }
  cleanedUp = true;
}

for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(sig, () => {
    console.error(`\nbench: ${sig}, cleaning up`);
    cleanupAllSync();
    process.exit(130);
  });
}
process.on("exit", cleanupAllSync);
