/**
 * Deleting one's own account (Cloud): proof first (password, or a typed email and a recent
 * sign-in for an account without one), refused while the person alone holds an organization
 * others work in, and then every credential stops at once, their own organization and workspaces
 * go, and what they wrote elsewhere stays, signed "Deleted user".
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { Client } from "../helpers/client.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { connect } from "../realtime/ws-client.ts";

const PASSWORD = "a member password here";

describe("DELETE /api/v1/users/me (Cloud)", () => {
  let server: TestServer;
  let owner: TestUser;
  let member: { client: Client; email: string; id: string; refresh: string; apiKey: string; ownOrg: string; ownWorkspace: string };
  let wsSlug: string;

  beforeAll(async () => {
    server = await startTestServer({ QUIRE_EDITION: "cloud" });
    owner = await registerUser(server.url);
    wsSlug = owner.workspaceSlug;
    expect((await owner.client.post(`/api/v1/content/${wsSlug}/guide.md`, { title: "Guide", body: "Hello.\n" })).status).toBe(201);

    // A person invited into the owner's workspace, who also has an organization and workspace of their own.
    const email = `member.${Date.now()}@example.test`;
    const inv = await owner.client.post(`/api/v1/workspaces/${owner.workspaceId}/invitations`, { email, role: "editor" });
    const client = new Client(server.url);
    const acc = await client.post("/api/auth/invitations/accept", { token: String(inv.body.url).split("/invite/")[1], name: "Mia Member", password: PASSWORD });
    expect([200, 201]).toContain(acc.status);
    client.token = acc.body.access_token;
    const me = (await client.get("/api/auth/me")).body;
    const id = me.id ?? me.user?.id;
    const own = await client.post("/api/v1/workspaces", { name: "Mia's notes", slug: `mia-${Date.now()}` });
    expect(own.status).toBe(201);
    expect((await client.post(`/api/v1/content/${own.body.slug}/private.md`, { title: "Private", body: "Mine.\n" })).status).toBe(201);
    const comment = await client.post(`/api/v1/workspaces/${owner.workspaceId}/comments`, { page_path: "guide.md", body: "Nice guide" });
    expect(comment.status).toBe(201);
    const login = await new Client(server.url).post("/api/auth/login", { email, password: PASSWORD });
    expect(login.status).toBe(200);
    const key = await client.post("/api/v1/api-keys", { name: "ci" });
    expect(key.status).toBe(201);
    member = { client, email, id, refresh: login.body.refresh_token, apiKey: key.body.key, ownOrg: own.body.org_id ?? server.services.workspaces.byId(own.body.id)!.org_id, ownWorkspace: own.body.id };
  });
  afterAll(() => server.close());

  /** Everything a refusal must leave alone. */
  const snapshot = () =>
    ["users", "sessions", "refresh_tokens", "api_keys", "org_members", "organizations", "workspace_members", "user_identities", "webauthn_credentials"].map(
      (t) => [t, server.services.db.query(`SELECT COUNT(*) AS n FROM ${t}`).get()] as const,
    ).concat([["live workspaces", server.services.db.query("SELECT COUNT(*) AS n FROM workspaces WHERE deleted_at IS NULL").get()]], [
      ["comment authors", server.services.db.query("SELECT author_name FROM comments ORDER BY id").all() as never],
    ]);

  test("no password, or a wrong one: 400 on password, nothing changes", async () => {
    const before = snapshot();
    for (const body of [{}, { password: "" }, { password: "not it at all" }]) {
      const r = await member.client.request("DELETE", "/api/v1/users/me", { json: body });
      expect({ body, status: r.status, error: r.body.error, field: r.body.details?.field }).toEqual({ body, status: 400, error: "VALIDATION_ERROR", field: "password" });
    }
    expect(snapshot()).toEqual(before);
    expect((await member.client.get("/api/auth/me")).status).toBe(200);
  });

  test("the only Super Admin of an organization where others work is told to hand it over first; nothing changes", async () => {
    const before = snapshot();
    const r = await owner.client.request("DELETE", "/api/v1/users/me", { json: { password: owner.password } });
    expect(r.status).toBe(403);
    expect(r.body.error).toBe("FORBIDDEN");
    expect(r.body.message).toContain("Super Admin");
    expect(r.body.message).toContain("before deleting your account");
    expect(snapshot()).toEqual(before);
  });

  test("an API key cannot delete the account it belongs to", async () => {
    const r = await new Client(server.url).request("DELETE", "/api/v1/users/me", { json: { password: PASSWORD }, token: member.apiKey });
    expect(r.status).toBe(401);
  });

  test("with the password the account goes: every credential stops at once, their own organization and workspaces go, their comment stays as Deleted user", async () => {
    const folder = server.services.ledger.dir(member.ownWorkspace).root;
    expect(existsSync(folder)).toBe(true);
    const r = await member.client.request("DELETE", "/api/v1/users/me", { json: { password: PASSWORD } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ deleted: true, organizations_deleted: 1, workspaces_deleted: 1 });

    expect((await member.client.get("/api/auth/me")).status).toBe(401);
    expect((await new Client(server.url).post("/api/auth/refresh", { refresh_token: member.refresh })).status).toBe(401);
    expect((await new Client(server.url).get("/api/v1/workspaces", { token: member.apiKey })).status).toBe(401);
    expect((await new Client(server.url).post("/api/auth/login", { email: member.email, password: PASSWORD })).status).toBe(401);

    const db = server.services.db;
    expect(db.query("SELECT COUNT(*) AS n FROM users WHERE id = ?").get(member.id)).toEqual({ n: 0 });
    expect(db.query("SELECT COUNT(*) AS n FROM organizations WHERE id = ?").get(member.ownOrg)).toEqual({ n: 0 });
    expect(db.query("SELECT COUNT(*) AS n FROM workspaces WHERE id = ?").get(member.ownWorkspace)).toEqual({ n: 0 });
    for (const t of ["sessions", "refresh_tokens", "api_keys", "org_members", "workspace_members"]) {
      expect({ t, left: db.query(`SELECT COUNT(*) AS n FROM ${t} WHERE user_id = ?`).get(member.id) }).toEqual({ t, left: { n: 0 } });
    }
    expect(existsSync(folder)).toBe(false);

    // The owner's workspace keeps its page and shows the comment's author as deleted.
    expect((await owner.client.get(`/api/v1/content/${wsSlug}/guide.md`)).status).toBe(200);
    const comments = await owner.client.get(`/api/v1/workspaces/${owner.workspaceId}/comments?page_path=guide.md`);
    expect(comments.status).toBe(200);
    const items = comments.body.items ?? comments.body;
    expect(items.map((c: { body: string; author: { name: string } }) => [c.body, c.author.name])).toEqual([["Nice guide", "Deleted user"]]);

    // Now alone in their organization, the owner may go too.
    const again = await owner.client.request("DELETE", "/api/v1/users/me", { json: { password: owner.password } });
    expect(again.status).toBe(200);
    expect((await owner.client.get("/api/auth/me")).status).toBe(401);
  });

  test("an account without a password types its email, from a recent sign-in", async () => {
    const person = await registerUser(server.url);
    // A passkey-only account has no password hash.
    server.services.db.query("UPDATE users SET password_hash = NULL WHERE id = ?").run(person.id);
    const before = snapshot();
    for (const body of [{}, { password: person.password }, { confirm_email: "someone.else@example.test" }]) {
      const r = await person.client.request("DELETE", "/api/v1/users/me", { json: body });
      expect({ body, status: r.status, field: r.body.details?.field }).toEqual({ body, status: 400, field: "confirm_email" });
    }
    // A session begun long ago must sign in again first.
    server.services.db.query("UPDATE sessions SET created_at = '2020-01-01T00:00:00.000Z' WHERE user_id = ?").run(person.id);
    const stale = await person.client.request("DELETE", "/api/v1/users/me", { json: { confirm_email: person.email.toUpperCase() } });
    expect(stale.status).toBe(400);
    expect(stale.body.message).toContain("Sign in again");
    server.services.db.query("UPDATE sessions SET created_at = ? WHERE user_id = ?").run(new Date().toISOString(), person.id);
    expect(snapshot().filter(([t]) => t !== "sessions")).toEqual(before.filter(([t]) => t !== "sessions"));
    const ok = await person.client.request("DELETE", "/api/v1/users/me", { json: { confirm_email: person.email.toUpperCase() } });
    expect(ok.status).toBe(200);
    expect((await person.client.get("/api/auth/me")).status).toBe(401);
  });
});

describe("DELETE /api/v1/users/me is all or nothing, and ends live connections (Cloud)", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ QUIRE_EDITION: "cloud" });
  });
  afterAll(() => server.close());

  test("a database failure after the organization and its workspaces were deleted leaves everything as it was, files included", async () => {
    const person = await registerUser(server.url);
    const db = server.services.db;
    expect((await person.client.post(`/api/v1/content/${person.workspaceSlug}/notes/plan.md`, { title: "Plan", body: "Keep this.\n" })).status).toBe(201);
    const folder = server.services.ledger.dir(person.workspaceId).root;
    const file = join(folder, "notes", "plan.md");
    const fileBefore = readFileSync(file, "utf8");
    expect((await person.client.post(`/api/v1/workspaces/${person.workspaceId}/comments`, { page_path: "notes/plan.md", body: "Mine to keep" })).status).toBe(201);
    const orgId = server.services.workspaces.byId(person.workspaceId)!.org_id;
    const state = () => ({
      user: db.query("SELECT id, email, name FROM users WHERE id = ?").get(person.id),
      org: db.query("SELECT id FROM organizations WHERE id = ?").get(orgId),
      workspace: db.query("SELECT id, deleted_at FROM workspaces WHERE id = ?").get(person.workspaceId),
      pages: db.query("SELECT path, updated_by_name FROM pages WHERE workspace_id = ? ORDER BY path").all(person.workspaceId),
      sessions: db.query("SELECT COUNT(*) AS n FROM sessions WHERE user_id = ?").get(person.id),
      memberships: db.query("SELECT COUNT(*) AS n FROM org_members WHERE user_id = ?").get(person.id),
      comments: db.query("SELECT body, author_name FROM comments WHERE author_id = ?").all(person.id),
      keys: db.query("SELECT COUNT(*) AS n FROM api_keys WHERE user_id = ?").get(person.id),
    });
    expect((await person.client.post("/api/v1/api-keys", { name: "script" })).status).toBe(201);
    const before = state();
    expect(before.workspace).toEqual({ id: person.workspaceId, deleted_at: null });
    expect(before.comments).toEqual([{ body: "Mine to keep", author_name: person.name }]);

    // The last statement of the deletion (the user row) fails for real, after the organization,
    // its workspaces and the "Deleted user" renaming were already done in the same transaction.
    db.run(`CREATE TRIGGER refuse_account_delete BEFORE DELETE ON users WHEN OLD.id = '${person.id}' BEGIN SELECT RAISE(ABORT, 'refused for the test'); END`);
    try {
      const r = await person.client.request("DELETE", "/api/v1/users/me", { json: { password: person.password } });
      expect(r.status).toBe(500);
      expect(r.body.error).toBe("INTERNAL_ERROR");
    } finally {
      db.run("DROP TRIGGER refuse_account_delete");
    }

    expect(state()).toEqual(before);
    expect(existsSync(file)).toBe(true);
    expect(readFileSync(file, "utf8")).toBe(fileBefore);
    expect((await person.client.get("/api/auth/me")).status).toBe(200);
    const page = await person.client.get(`/api/v1/content/${person.workspaceSlug}/notes/plan.md`);
    expect(page.status).toBe(200);
    expect(page.body.content ?? page.body.body).toContain("Keep this.");
    // Still fully working: the workspace takes new pages.
    expect((await person.client.post(`/api/v1/content/${person.workspaceSlug}/after.md`, { title: "After" })).status).toBe(201);

    // Without the failure the same request deletes everything, files last.
    const ok = await person.client.request("DELETE", "/api/v1/users/me", { json: { password: person.password } });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ deleted: true, organizations_deleted: 1, workspaces_deleted: 1 });
    expect(db.query("SELECT COUNT(*) AS n FROM workspaces WHERE id = ?").get(person.workspaceId)).toEqual({ n: 0 });
    expect(existsSync(folder)).toBe(false);
  });

  test("the person's open WebSockets are closed the moment the account goes, with the session-ended code", async () => {
    const person = await registerUser(server.url);
    const other = await registerUser(server.url);
    const laptop = await connect(server, person);
    const phone = await connect(server, person);
    const bystander = await connect(server, other);
    const before = server.services.realtime.connectionCount;

    const r = await person.client.request("DELETE", "/api/v1/users/me", { json: { password: person.password } });
    expect(r.status).toBe(200);
    // No event is needed to notice: both are closed at once.
    for (const socket of [laptop, phone]) expect(await socket.waitClosed(1000)).toEqual({ code: 4401, reason: "Account deleted" });
    expect(server.services.realtime.connectionCount).toBe(before - 2);
    // Someone else's connection is untouched and still served.
    expect(bystander.closed).toBeNull();
    bystander.send({ type: "ping" });
    await bystander.next((f) => f.type === "pong");
    bystander.close();
    // And the deleted person cannot open a new one.
    expect((await person.client.post("/api/auth/ws-token")).status).toBe(401);
  });
});

describe("DELETE /api/v1/users/me (Community)", () => {
  test("is 404 and deletes nothing, even with the right password", async () => {
    const server = await startTestServer();
    try {
      const user = await registerUser(server.url);
      const r = await user.client.request("DELETE", "/api/v1/users/me", { json: { password: user.password } });
      expect(r.status).toBe(404);
      expect((await user.client.get("/api/auth/me")).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe("guessing the password through account deletion", () => {
  test("is held to the auth limit (20 per minute per account), and the account survives", async () => {
    const server = await startTestServer({ QUIRE_EDITION: "cloud" });
    try {
      const user = await registerUser(server.url);
      const statuses: number[] = [];
      for (let i = 0; i < 21; i++) statuses.push((await user.client.request("DELETE", "/api/v1/users/me", { json: { password: `guess ${i}` } })).status);
      expect(statuses.slice(0, 19).every((s) => s === 400)).toBe(true);
      expect(statuses.at(-1)).toBe(429);
      expect((await user.client.get("/api/auth/me")).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
