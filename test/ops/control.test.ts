/**
 * The control endpoint's three gates: the bind address (127.0.0.1 only), the peer check
 * (loopback only) and the per-boot token (constant-time). From inside one machine a truly
 * non-loopback peer can only reach a listener bound more widely; so the peer check is tested
 * directly, and through a listener deliberately bound to 0.0.0.0 and reached over this
 * machine's own non-loopback address when it has one.
 */
import { afterEach, expect, test } from "bun:test";
import { networkInterfaces } from "node:os";
import { isLoopbackAddress, startControlEndpoint, tokenAllows, type ControlEndpoint } from "../../src/ops/control.ts";

const TOKEN = "a".repeat(64);
const endpoints: ControlEndpoint[] = [];
let stops = 0;
function endpoint(hostname?: string): ControlEndpoint {
  const e = startControlEndpoint({
    token: TOKEN,
    status: () => ({ pid: 42, instance_id: "01TEST", version: "v0", url: "http://localhost:1", started_at: "" }),
    onStop: () => void stops++,
    ...(hostname ? { hostname } : {}),
  });
  endpoints.push(e);
  return e;
}
afterEach(() => {
  for (const e of endpoints.splice(0)) e.stop();
});
const call = (host: string, port: number, path: string, init: RequestInit = {}) =>
  fetch(`http://${host}:${port}${path}`, { ...init, signal: AbortSignal.timeout(2000) });

test("loopback addresses are recognised; everything else is not", () => {
  for (const a of ["127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1", "0:0:0:0:0:0:0:1"]) expect(isLoopbackAddress(a)).toBe(true);
  for (const a of ["10.0.0.1", "192.168.1.2", "::ffff:10.0.0.1", "fe80::1", "0.0.0.0", "", undefined, "127.0.0", "1270.0.0.1", "127.0.0.256"]) {
    expect(isLoopbackAddress(a)).toBe(false);
  }
});

test("the token must match exactly, as a bearer token", () => {
  expect(tokenAllows(`Bearer ${TOKEN}`, TOKEN)).toBe(true);
  expect(tokenAllows(null, TOKEN)).toBe(false);
  expect(tokenAllows("Bearer ", TOKEN)).toBe(false);
  expect(tokenAllows(`Bearer ${TOKEN.slice(1)}b`, TOKEN)).toBe(false);
  expect(tokenAllows(`Bearer ${TOKEN}x`, TOKEN)).toBe(false);
  expect(tokenAllows(TOKEN, TOKEN)).toBe(false);
  expect(tokenAllows("Bearer ", "")).toBe(false);
});

test("it listens on 127.0.0.1 only, refuses missing and wrong tokens, and stops once on the right one", async () => {
  const e = endpoint();
  expect(e.hostname).toBe("127.0.0.1");
  // Another loopback address of this machine reaches nothing: the socket is bound to 127.0.0.1.
  await expect(call("127.0.0.2", e.port, "/status")).rejects.toThrow();

  expect((await call("127.0.0.1", e.port, "/status")).status).toBe(401);
  expect((await call("127.0.0.1", e.port, "/stop", { method: "POST" })).status).toBe(401);
  const wrong = { authorization: `Bearer ${"b".repeat(64)}` };
  expect((await call("127.0.0.1", e.port, "/stop", { method: "POST", headers: wrong })).status).toBe(401);
  expect(stops).toBe(0);

  const right = { authorization: `Bearer ${TOKEN}` };
  const status = await call("127.0.0.1", e.port, "/status", { headers: right });
  expect(status.status).toBe(200);
  expect(await status.json()).toMatchObject({ pid: 42, instance_id: "01TEST" });
  expect((await call("127.0.0.1", e.port, "/stop", { headers: right })).status).toBe(404); // GET is not a stop
  expect((await call("127.0.0.1", e.port, "/stop", { method: "POST", headers: right })).status).toBe(202);
  expect((await call("127.0.0.1", e.port, "/stop", { method: "POST", headers: right })).status).toBe(202);
  await Bun.sleep(10);
  expect(stops).toBe(1);
});

test("a peer that is not loopback is refused even with the right token (listener bound widely on purpose)", async () => {
  const external = Object.values(networkInterfaces())
    .flat()
    .find((i) => i && i.family === "IPv4" && !i.internal)?.address;
  if (!external) {
    console.warn("no non-loopback IPv4 address on this machine; the listener test of the peer check is skipped");
    return;
  }
  const e = endpoint("0.0.0.0");
  const before = stops;
  const response = await call(external, e.port, "/stop", { method: "POST", headers: { authorization: `Bearer ${TOKEN}` } });
  expect(response.status).toBe(403);
  await Bun.sleep(10);
  expect(stops).toBe(before);
});
