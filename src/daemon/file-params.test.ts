import { expect, test } from "bun:test";
import { refuseFileParams } from "./file-params.ts";

test("the params that write files are refused by name, and only those, and only where they write", () => {
  expect(() => refuseFileParams("session.create", { name: "x", command: ["sh"] })).not.toThrow();
  expect(() => refuseFileParams("session.create", { record: "/tmp/a.cast", socket: "/tmp/s" })).toThrow(
    expect.objectContaining({ name: "UNAUTHORIZED", details: { params: ["record", "socket"] } }),
  );
  // Explicitly absent is absent.
  expect(() => refuseFileParams("session.create", { log_path: undefined })).not.toThrow();
  expect(() => refuseFileParams("session.input", { session: "s", record: "/tmp/a" })).not.toThrow();
  expect(() => refuseFileParams("session.create", undefined)).not.toThrow();
});
