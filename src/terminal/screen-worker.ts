// A screen worker: a thread that holds the headless screens of some sessions and parses their
// output, so that parsing (the daemon's heaviest work) never holds the thread that moves bytes and
// answers requests. It is a second entrypoint of the compiled binary (scripts/build.ts).
import { ScreenHost } from "./screen-host.ts";
import type { FromWorker, ToWorker } from "./screen-messages.ts";

declare const self: Worker;

const host = new ScreenHost((m: FromWorker) => self.postMessage(m));
self.onmessage = (ev: MessageEvent<ToWorker>) => host.handle(ev.data);
