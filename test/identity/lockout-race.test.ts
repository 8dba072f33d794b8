import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { Client } from "../helpers/client.ts";
import { signUp } from "./support.ts";

// The default argon2id memory at four times the default passes: a verification takes several hundred
// milliseconds, so what lands 25 ms after the request lands during it even when this process's event
// loop is late by a hundred (the suite's workers run other files beside this one).
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ ARGON2_MEMORY: "", ARGON2_TIME: "12", ARGON2_THREADS: "", QUIRE_LOGIN_LOCK_THRESHOLD: "3" });
});
afterAll(() => server.close());

test("a right password whose verification ends after the account was locked is refused", async () => {
  const u = await signUp(server.url);
  const pending = new Client(server.url).post("/api/auth/login", { email: u.email, password: u.password });
  await Bun.sleep(25);
  // Meanwhile a burst of concurrent wrong guesses reaches the threshold and locks the account.
  server.services.db.query("UPDATE users SET failed_logins = 3, locked_until = ? WHERE id = ?").run(Date.now() + 60_000, u.id);
  const r = await pending;
  expect(r.status).toBe(401);
  expect(r.body.error).toBe("UNAUTHORIZED");
  expect(server.services.db.query("SELECT COUNT(*) AS n FROM sessions WHERE user_id = ?").get(u.id)).toEqual({ n: 1 });
});

test("a password change that lands during a verification makes the old password fail", async () => {
  const u = await signUp(server.url);
  const newHash = await server.services.passwords.hash("changed meanwhile");
  const pending = new Client(server.url).post("/api/auth/login", { email: u.email, password: u.password });
  await Bun.sleep(25);
  // What a reset commits (its own hashing is as slow as the login's, so it is done beforehand here).
  server.services.users.setPassword(u.id, newHash, new Date().toISOString());
  expect((await pending).status).toBe(401);
  expect((await new Client(server.url).post("/api/auth/login", { email: u.email, password: "changed meanwhile" })).status).toBe(200);
});
