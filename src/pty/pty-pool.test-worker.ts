// A pty worker that cannot start at all, as a broken build's would: pty-pool.test.ts gives a pool
// this entry to see that it is not restarted in a tight loop.
throw new Error("this worker cannot start");
