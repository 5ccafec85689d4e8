import { describe, expect, test } from "bun:test";
import { hostAllowed, originAllowed, parseListen, type AddressPolicy } from "./address.ts";

const policy = (hostname: string, extra: Partial<AddressPolicy> = {}): AddressPolicy => ({
  listen: { hostname, port: 7681 },
  allowHosts: [],
  allowOrigins: [],
  ...extra,
});

describe("--http", () => {
  test("a bare port binds loopback; HOST:PORT and [v6]:PORT are taken as given", () => {
    expect(parseListen("7681")).toEqual({ hostname: "127.0.0.1", port: 7681 });
    expect(parseListen("0.0.0.0:80")).toEqual({ hostname: "0.0.0.0", port: 80 });
    expect(parseListen("[::1]:0")).toEqual({ hostname: "::1", port: 0 });
    for (const bad of ["", "host", "host:", ":80", "1.2.3.4:70000", "a:b"])
      expect(() => parseListen(bad)).toThrow("--http needs HOST:PORT");
  });
});

describe("the Host check", () => {
  test("a loopback listener answers to its loopback names only, so DNS rebinding cannot reach it", () => {
    const p = policy("127.0.0.1");
    for (const ok of ["127.0.0.1:7681", "localhost:7681", "LOCALHOST", "[::1]:7681"]) expect(hostAllowed(ok, p)).toBe(true);
    for (const no of ["attacker.example:7681", "127.0.0.1.attacker.example", "10.0.0.5:7681", "", null])
      expect(hostAllowed(no, p)).toBe(false);
  });

  test("a listener on every interface answers to address literals; names must be allowed", () => {
    const p = policy("0.0.0.0", { allowHosts: ["termd.example.com"] });
    expect(hostAllowed("10.0.0.5:7681", p)).toBe(true);
    expect(hostAllowed("termd.example.com", p)).toBe(true);
    expect(hostAllowed("other.example.com", p)).toBe(false);
    expect(hostAllowed("anything", policy("0.0.0.0", { allowHosts: ["*"] }))).toBe(true);
  });
});

describe("the Origin check", () => {
  const p = policy("127.0.0.1", { allowOrigins: ["https://ops.example.com/"] });
  test("the daemon's own origin and allowed ones pass; a request without one is not a browser's", () => {
    expect(originAllowed("http://127.0.0.1:7681", "127.0.0.1:7681", p)).toBe(true);
    expect(originAllowed("https://ops.example.com", "127.0.0.1:7681", p)).toBe(true);
    expect(originAllowed(null, "127.0.0.1:7681", p)).toBe(true);
  });
  test("another origin, another port, and the opaque origin `null` are refused", () => {
    expect(originAllowed("http://evil.example", "127.0.0.1:7681", p)).toBe(false);
    expect(originAllowed("http://127.0.0.1:9999", "127.0.0.1:7681", p)).toBe(false);
    expect(originAllowed("null", "127.0.0.1:7681", p)).toBe(false);
  });
});
