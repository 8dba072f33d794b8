/** Which redirect URIs a client may register, and when an asked one matches a registered one. */
import { expect, test } from "bun:test";
import { checkRedirectUri, redirectRegistered } from "../../src/oauth/redirect-uris.ts";

test("https anywhere and http on loopback are accepted; every other scheme and shape is refused", () => {
  for (const ok of ["https://app.example/cb", "https://app.example:8443/a/b?x=1", "http://127.0.0.1/cb", "http://127.0.0.1:33418/", "http://[::1]:9000/cb", "http://localhost:3000/callback"]) {
    expect(checkRedirectUri(ok)).toBe(ok);
  }
  for (const bad of ["javascript:alert(1)", "data:text/html,x", "file:///etc/passwd", "http://app.example/cb", "http://10.0.0.5/cb", "https://app.example/cb#x", "https://u:p@app.example/cb", "cursor://callback", "", "x".repeat(2001), 42]) {
    expect(() => checkRedirectUri(bad), String(bad).slice(0, 40)).toThrow();
  }
});

test("exact match, except that a loopback redirect may use any port", () => {
  const registered = ["https://app.example/oauth/cb", "http://127.0.0.1:5000/callback"];
  expect(redirectRegistered(registered, "https://app.example/oauth/cb")).toBe(true);
  expect(redirectRegistered(registered, "http://127.0.0.1:5000/callback")).toBe(true);
  expect(redirectRegistered(registered, "http://127.0.0.1:61000/callback")).toBe(true);
  expect(redirectRegistered(registered, "http://127.0.0.1/callback")).toBe(true);
  for (const near of [
    "https://app.example/oauth/cb/",
    "https://app.example/oauth/CB",
    "https://APP.example/oauth/cb",
    "https://app.example:443/oauth/cb",
    "https://app.example:444/oauth/cb",
    "https://app.example/oauth/cb?",
    "https://app.example/oauth/cb#",
    "http://127.0.0.1:61000/callback/",
    "http://127.0.0.1:61000/Callback",
    "http://127.0.0.1:61000/callback?x=1",
    "http://localhost:5000/callback",
    "http://127.0.0.1:61000/callback#frag",
    "http://127.0.0.1:61000/%63allback",
  ]) {
    expect(redirectRegistered(registered, near), near).toBe(false);
  }
});
