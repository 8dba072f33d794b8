import { afterAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { startTestServer, tempDir, type TestServer } from "../helpers/server.ts";
import { Client } from "../helpers/client.ts";
import { errorOf, signUp } from "./support.ts";

/**
 * An unknown email must cost what a wrong password costs: one argon2 verification. The dummy hash
 * it is checked against is made when a password is first hashed and kept in the database, so the
 * first unknown-email login after a restart does not pay for making it (a once-per-process timing
 * leak of which accounts exist). Wall times are too noisy to assert; the hasher's own count of
 * argon2 computations is exact.
 */
const dirs: string[] = [];
const servers: TestServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function boot(dataDir: string, env: Record<string, string> = {}): Promise<TestServer> {
  const s = await startTestServer(env, { dataDir, keepDir: true });
  servers.push(s);
  return s;
}
async function stop(s: TestServer): Promise<void> {
  servers.splice(servers.indexOf(s), 1);
  await s.close();
}
const storedDummy = (s: TestServer) =>
  s.services.db.query<{ value: string }, []>("SELECT value FROM instance WHERE key = 'password_dummy_hash'").get()?.value ?? null;
/** The argon2 work one request caused on the server. */
async function workOf(s: TestServer, request: () => Promise<unknown>) {
  const before = { ...s.services.passwords.work };
  await request();
  const after = s.services.passwords.work;
  return { hashes: after.hashes - before.hashes, verifies: after.verifies - before.verifies };
}
const login = (s: TestServer, email: string, password: string) =>
  new Client(s.url).post("/api/auth/login", { email, password });

test("after a restart the first unknown-email login costs one verification, like a wrong password, and no hash", async () => {
  const dir = tempDir();
  dirs.push(dir);
  const first = await boot(dir);
  const u = await signUp(first.url);
  // The first password hashed also made the dummy, with the configured parameters.
  const dummy = storedDummy(first);
  expect(dummy).toMatch(/^\$argon2id\$v=19\$m=1024,t=1,p=1\$/);
  await stop(first);

  const second = await boot(dir);
  // Nothing about passwords happens at start.
  expect(second.services.passwords.work).toEqual({ hashes: 0, verifies: 0 });
  let unknown: any;
  expect(await workOf(second, async () => (unknown = await login(second, `nobody.${Date.now()}@example.test`, "some password")))).toEqual({
    hashes: 0,
    verifies: 1,
  });
  errorOf(unknown, 401, "UNAUTHORIZED");
  let wrong: any;
  expect(await workOf(second, async () => (wrong = await login(second, u.email, "not the password")))).toEqual({ hashes: 0, verifies: 1 });
  errorOf(wrong, 401, "UNAUTHORIZED");
  // Every later unknown email too; the stored dummy is reused, not replaced.
  expect(await workOf(second, () => login(second, "someone.else@example.test", "another password"))).toEqual({ hashes: 0, verifies: 1 });
  expect(storedDummy(second)).toBe(dummy);
  // Registering again does not make another dummy either.
  expect(await workOf(second, () => signUp(second.url))).toEqual({ hashes: 1, verifies: 0 });
  expect(storedDummy(second)).toBe(dummy);
});

test("changed ARGON2_* parameters replace the stored dummy, so unknown accounts keep costing what real ones cost", async () => {
  const dir = tempDir();
  dirs.push(dir);
  const first = await boot(dir);
  await signUp(first.url);
  const old = storedDummy(first)!;
  await stop(first);

  const second = await boot(dir, { ARGON2_MEMORY: "2048" });
  // A dummy made with the old (cheaper) cost would answer faster than a real account: it is not used.
  // Making the new one is this login's single argon2 computation.
  expect(await workOf(second, () => login(second, "nobody@example.test", "some password"))).toEqual({ hashes: 1, verifies: 0 });
  const renewed = storedDummy(second)!;
  expect(renewed).not.toBe(old);
  expect(renewed).toMatch(/^\$argon2id\$v=19\$m=2048,t=1,p=1\$/);
  expect(await workOf(second, () => login(second, "nobody@example.test", "some password"))).toEqual({ hashes: 0, verifies: 1 });
});

test("on an instance where no password was ever hashed an unknown email costs one computation too", async () => {
  const dir = tempDir();
  dirs.push(dir);
  const s = await boot(dir);
  expect(storedDummy(s)).toBeNull();
  const r = await login(s, "nobody@example.test", "some password");
  errorOf(r, 401, "UNAUTHORIZED");
  expect(s.services.passwords.work).toEqual({ hashes: 1, verifies: 0 });
  expect(storedDummy(s)).toMatch(/^\$argon2id\$/);
  // The first registration finds the dummy made and does not make another.
  expect(await workOf(s, () => signUp(s.url))).toEqual({ hashes: 1, verifies: 0 });
});
