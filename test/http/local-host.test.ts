/** DNS rebinding: a local instance refuses requests that name a host other than a loopback one. */
import { expect, test } from "bun:test";
import { foreignToLocalInstance } from "../../src/http/local-host.ts";

const req = (headers: Record<string, string>) => new Request("http://127.0.0.1:3000/p/docs/mcp", { method: "POST", headers });

test("a local instance accepts loopback names and refuses any other Host or Origin", () => {
  const local = "http://localhost:3000";
  for (const host of ["localhost:3000", "127.0.0.1:3000", "127.8.9.10", "[::1]:3000", "docs.localhost:3000"]) expect(foreignToLocalInstance(req({ host }), local)).toBe(false);
  expect(foreignToLocalInstance(req({ host: "127.0.0.1:3000", origin: "http://localhost:3000" }), local)).toBe(false);
  expect(foreignToLocalInstance(req({ host: "127.0.0.1:3000", origin: "null" }), local)).toBe(false);
  for (const host of ["evil.example.com", "127.0.0.1.evil.example.com", "localhost.evil.example.com:3000", "10.0.0.5:3000"]) expect(foreignToLocalInstance(req({ host }), local)).toBe(true);
  expect(foreignToLocalInstance(req({ host: "127.0.0.1:3000", origin: "http://evil.example.com" }), local)).toBe(true);
  expect(foreignToLocalInstance(req({ host: "127.0.0.1:3000", origin: "not a url" }), local)).toBe(true);
});

test("an instance on a real name is not restricted by this rule", () => {
  expect(foreignToLocalInstance(req({ host: "docs.example.com", origin: "https://elsewhere.example" }), "https://docs.example.com")).toBe(false);
});
