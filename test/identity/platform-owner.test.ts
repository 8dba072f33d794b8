/** Platform owners: the flagged users, or — while nobody is flagged — the instance's first user. */
import { afterAll, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser } from "../helpers/factories.ts";
import { isPlatformOwner } from "../../src/identity/platform-owner.ts";

let server: TestServer;
afterAll(async () => {
  await server?.close();
});

test("the first user until someone is flagged; then only the flagged", async () => {
  server = await startTestServer();
  const base = `http://127.0.0.1:${server.port}`;
  const first = await registerUser(base);
  const second = await registerUser(base);
  const { db } = server.services;
  expect(isPlatformOwner(db, first.id)).toBe(true);
  expect(isPlatformOwner(db, second.id)).toBe(false);
  expect(isPlatformOwner(db, "01HZZZZZZZZZZZZZZZZZZZZZZZ")).toBe(false);
  db.query("UPDATE users SET is_platform_owner = 1 WHERE id = ?").run(second.id);
  expect(isPlatformOwner(db, second.id)).toBe(true);
  expect(isPlatformOwner(db, first.id)).toBe(false);
}, 30_000);
