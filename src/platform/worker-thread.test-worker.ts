// The worker worker-thread.test.ts starts: it answers each message with its echo, or ends as the
// message tells it: with an uncaught error, or with an exit and no error.
declare const self: Worker;

self.onmessage = (ev: MessageEvent<string>) => {
  if (ev.data === "throw") throw new Error("told to fail");
  if (ev.data === "exit") process.exit(3);
  self.postMessage(`echo ${ev.data}`);
};
