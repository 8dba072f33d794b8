import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { Client } from "../helpers/client.ts";
import { setCookie } from "./support.ts";

/**
 * Registration creates the account first and signs it in afterwards. When the sign-in fails (here:
 * the database refuses new sessions, as a trigger added by an operator's maintenance script or a
 * storage fault would) the account still exists, so the answer is 201 with the user only and the
 * client signs in separately (docs/interfaces.md §2).
 */
let server: TestServer;
let outside: Database;
beforeAll(async () => {
  server = await startTestServer();
  // A separate connection to the same file, like any other process on the machine.
  outside = new Database(join(server.dataDir, "quire.db"));
});
afterAll(async () => {
  outside.close();
  await server.close();
});

test("when the automatic sign-in fails, register answers 201 with only the user; signing in later works", async () => {
  outside.exec("CREATE TRIGGER refuse_sessions BEFORE INSERT ON sessions BEGIN SELECT RAISE(ABORT, 'sessions are read-only'); END");
  const email = `fallback.${Date.now()}@example.test`;
  const client = new Client(server.url);
  const r = await client.post("/api/auth/register", { name: "Fallback Person", email, password: "a perfectly fine password", terms_accepted: true });
  expect(r.status).toBe(201);
  expect(Object.keys(r.body)).toEqual(["user"]);
  expect(r.body.user).toMatchObject({ email, name: "Fallback Person" });
  expect(setCookie(r.headers, "quire_refresh")).toBeUndefined();

  // The account and its starter workspace were committed; no session was.
  const id = r.body.user.id as string;
  expect(outside.query("SELECT email FROM users WHERE id = ?").get(id)).toEqual({ email });
  expect(outside.query("SELECT COUNT(*) AS n FROM workspace_members WHERE user_id = ? AND role = 'admin'").get(id)).toEqual({ n: 1 });
  expect(outside.query("SELECT COUNT(*) AS n FROM sessions WHERE user_id = ?").get(id)).toEqual({ n: 0 });
  expect(outside.query("SELECT COUNT(*) AS n FROM refresh_tokens").get()).toEqual({ n: 0 });

  // The same address cannot register twice; once sessions work again the account signs in.
  expect((await new Client(server.url).post("/api/auth/register", { name: "Again", email, password: "a perfectly fine password", terms_accepted: true })).status).toBe(409);
  outside.exec("DROP TRIGGER refuse_sessions");
  const login = await new Client(server.url).post("/api/auth/login", { email, password: "a perfectly fine password" });
  expect(login.status).toBe(200);
  const me = await new Client(server.url).get("/api/auth/me", { token: login.body.access_token });
  expect(me.body.user.id).toBe(id);
});
