// A master's owners: the worker's ledger holds it until it is handed over, and the daemon's thread closes it once.
import { expect, test } from "bun:test";
import { fstatSync } from "node:fs";
import { FdLedger } from "./fd-ledger.ts";
import { closeUnstarted, handOver, openMaster, PtyMaster } from "./pty-master.ts";

const isOpen = (fd: number) => {
  try {
    fstatSync(fd);
    return true;
  } catch {
    return false;
  }
};

test("a master the worker opened is in its ledger until handed over, then the daemon's thread closes it, once", () => {
  const ledger = new FdLedger();
  const fd = openMaster(ledger);
  // Should the worker die now, its pool finds the master and closes it.
  expect(ledger.held()).toEqual([fd]);
  handOver(fd, ledger);
  expect(ledger.held()).toEqual([]);
  const master = new PtyMaster(fd);
  expect(master.descriptor).toBe(fd);
  master.close();
  expect(isOpen(fd)).toBe(false);
  expect(master.descriptor).toBeNull();
  // A second close (an exit after the worker's death) and a write after it touch no descriptor.
  master.close();
  expect(master.write(new Uint8Array([0x61]))).toBe(0);
});

test("a program that did not start: the worker closes the master it opened, and its ledger lets it go", () => {
  const ledger = new FdLedger();
  const fd = openMaster(ledger);
  closeUnstarted(fd, ledger);
  expect(ledger.held()).toEqual([]);
  expect(isOpen(fd)).toBe(false);
});
