import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { Client } from "../helpers/client.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { inviteToken, memberRole } from "./support.ts";
import { sha256Hex } from "../../src/core/crypto.ts";

let server: TestServer;
let owner: TestUser;
let ws: string;
beforeAll(async () => {
  server = await startTestServer({
    BASE_URL: "https://quire.example.test",
    QUIRE_LOGIN_LOCK_THRESHOLD: "3",
    QUIRE_LOGIN_LOCK_DURATION_SEC: "1",
  });
  owner = await registerUser(server.url);
  ws = owner.workspaceId;
});
afterAll(() => server.close());

let n = 0;
const newEmail = () => `invitee${++n}.${Date.now()}@example.test`;
const invite = (body: Record<string, unknown>) => owner.client.post(`/api/v1/workspaces/${ws}/invitations`, body);
const invitationRow = (id: string) => server.services.db.query<any, [string]>("SELECT * FROM invitations WHERE id = ?").get(id);

describe("creating and listing", () => {
  test("without email configured the link comes back once; only its hash is stored", async () => {
    const email = newEmail();
    const r = await invite({ email, role: "editor" });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      email,
      role: "editor",
      status: "pending",
      invited_by: { id: owner.id, name: owner.name },
      accepted_at: null,
    });
    expect(r.body.url).toStartWith("https://quire.example.test/invite/");
    const token = inviteToken(r.body.url);
    expect(token.length).toBeGreaterThanOrEqual(43);
    const days = (Date.parse(r.body.expires_at) - Date.parse(r.body.created_at)) / 86_400_000;
    expect(days).toBe(7);
    const row = invitationRow(r.body.id);
    expect(row.token_hash).toBe(sha256Hex(token));
    expect(JSON.stringify(row)).not.toContain(token);
    expect(server.logs.join("\n")).not.toContain(token);
    expect(server.services.db.query("SELECT COUNT(*) AS n FROM email_outbox").get()).toEqual({ n: 0 });
    const list = await owner.client.get(`/api/v1/workspaces/${ws}/invitations`);
    const listed = list.body.items.find((i: any) => i.id === r.body.id);
    expect(listed.status).toBe("pending");
    expect(listed.url).toBeUndefined();
    expect(JSON.stringify(list.body)).not.toContain(token);
  });

  test("bad input", async () => {
    for (const [body, field] of [
      [{ email: "not-an-email", role: "viewer" }, "email"],
      [{ email: newEmail(), role: "owner" }, "role"],
      [{ email: newEmail(), role: "super_admin" }, "role"],
      [{ role: "viewer" }, "email"],
      [{ email: newEmail(), role: "viewer", token: "mine" }, "token"],
    ] as const) {
      const r = await invite(body);
      expect({ body, status: r.status, field: r.body.details?.field }).toEqual({ body, status: 400, field });
    }
  });

  test("inviting someone who already has access is 409", async () => {
    const r = await invite({ email: owner.email.toUpperCase(), role: "viewer" });
    expect(r.status).toBe(409);
    expect(r.body.details.field).toBe("email");
  });

  test("inviting the same address again replaces the pending invitation", async () => {
    const email = newEmail();
    const first = await invite({ email, role: "viewer" });
    const second = await invite({ email, role: "commenter" });
    expect(second.status).toBe(201);
    expect(invitationRow(first.body.id).status).toBe("revoked");
    const old = await new Client(server.url).post("/api/auth/invitations/accept", {
      token: inviteToken(first.body.url),
      name: "Late",
      password: "long enough password",
    });
    expect(old.status).toBe(400);
    expect(old.body.details.reason).toBe("revoked");
  });

  test("the list filters by status and pages", async () => {
    const a = await invite({ email: newEmail(), role: "viewer" });
    const b = await invite({ email: newEmail(), role: "viewer" });
    await owner.client.delete(`/api/v1/workspaces/${ws}/invitations/${b.body.id}`);
    const c = await invite({ email: newEmail(), role: "viewer" });
    server.services.db.query("UPDATE invitations SET expires_at = ? WHERE id = ?").run("2020-01-01T00:00:00.000Z", c.body.id);
    const ids = async (q: string) =>
      (await owner.client.get(`/api/v1/workspaces/${ws}/invitations${q}`)).body.items.map((i: any) => i.id);
    expect(await ids("")).toContain(a.body.id);
    expect(await ids("")).not.toContain(b.body.id);
    expect(await ids("")).not.toContain(c.body.id);
    expect(await ids("?status=revoked")).toContain(b.body.id);
    expect(await ids("?status=expired")).toEqual([c.body.id]);
    const all = await ids("?status=all");
    expect(all).toEqual(expect.arrayContaining([a.body.id, b.body.id, c.body.id]));
    const page = await owner.client.get(`/api/v1/workspaces/${ws}/invitations?status=all&limit=2`);
    expect(page.body.items).toHaveLength(2);
    const next = await owner.client.get(`/api/v1/workspaces/${ws}/invitations?status=all&limit=2&cursor=${page.body.next_cursor}`);
    expect(next.body.items[0].id < page.body.items[1].id).toBe(true);
    expect((await owner.client.get(`/api/v1/workspaces/${ws}/invitations?status=nope`)).status).toBe(400);
  });

  test("revoking: pending → revoked (twice is fine), unknown → 404, accepted → 409", async () => {
    const r = await invite({ email: newEmail(), role: "viewer" });
    expect((await owner.client.delete(`/api/v1/workspaces/${ws}/invitations/${r.body.id}`)).status).toBe(204);
    expect(invitationRow(r.body.id).status).toBe("revoked");
    expect((await owner.client.delete(`/api/v1/workspaces/${ws}/invitations/${r.body.id}`)).status).toBe(204);
    expect((await owner.client.delete(`/api/v1/workspaces/${ws}/invitations/01ARZ3NDEKTSV4RRFFQ69G5FAV`)).status).toBe(404);
    expect((await owner.client.delete(`/api/v1/workspaces/${ws}/invitations/garbage`)).status).toBe(404);

    const accepted = await invite({ email: newEmail(), role: "viewer" });
    const ok = await new Client(server.url).post("/api/auth/invitations/accept", {
      token: inviteToken(accepted.body.url),
      name: "Taken",
      password: "long enough password",
    });
    expect(ok.status).toBe(201);
    expect((await owner.client.delete(`/api/v1/workspaces/${ws}/invitations/${accepted.body.id}`)).status).toBe(409);
    expect(invitationRow(accepted.body.id).status).toBe("accepted");
  });
});

describe("accepting", () => {
  test("a new address gets an account, its own organization and the invited role, signed in", async () => {
    const email = newEmail();
    const r0 = await invite({ email, role: "commenter" });
    const client = new Client(server.url);
    const r = await client.post("/api/auth/invitations/accept", { token: inviteToken(r0.body.url), name: "Ada", password: "a fine password" });
    expect(r.status).toBe(201);
    expect(r.body.user).toMatchObject({ name: "Ada", email, has_password: true });
    expect(r.body.access_token).toBeString();
    expect(r.body.expires_in).toBe(900);
    expect(r.body.workspace).toMatchObject({ id: ws, role: "commenter" });
    const cookie = r.headers.getSetCookie().find((c) => c.startsWith("quire_refresh="))!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Strict/i);
    expect(cookie).toMatch(/Secure/i);

    const userId = r.body.user.id;
    expect(memberRole(server, ws, userId)).toBe("commenter");
    const org = server.services.db
      .query<any, [string]>("SELECT o.owner_id, m.role FROM organizations o JOIN org_members m ON m.org_id = o.id WHERE m.user_id = ?")
      .all(userId);
    expect(org).toEqual([{ owner_id: userId, role: "super_admin" }]);
    expect(invitationRow(r0.body.id)).toMatchObject({ status: "accepted", accepted_at: expect.any(String) });

    client.token = r.body.access_token;
    const list = await client.get("/api/v1/workspaces");
    expect(list.body.items.map((w: any) => [w.id, w.role])).toEqual([[ws, "commenter"]]);
    const login = await client.post("/api/auth/login", { email, password: "a fine password" });
    expect(login.status).toBe(200);
  });

  test("an existing account proves itself with its password and just gains the membership", async () => {
    const u = await registerUser(server.url);
    const usersBefore = server.services.db.query("SELECT COUNT(*) AS n FROM users").get();
    const r0 = await invite({ email: u.email, role: "editor" });
    const r = await u.client.post("/api/auth/invitations/accept", { token: inviteToken(r0.body.url), name: "Ignored", password: u.password });
    expect(r.status).toBe(200);
    expect(r.body.user).toMatchObject({ id: u.id, name: u.name });
    expect(r.body.access_token).toBeString();
    expect(memberRole(server, ws, u.id)).toBe("editor");
    expect(server.services.db.query("SELECT COUNT(*) AS n FROM users").get()).toEqual(usersBefore);
  });

  test("wrong passwords on accept count toward the login lockout", async () => {
    const u = await registerUser(server.url);
    const r0 = await invite({ email: u.email, role: "viewer" });
    const token = inviteToken(r0.body.url);
    const anon = new Client(server.url);
    for (let i = 0; i < 3; i++) {
      const r = await anon.post("/api/auth/invitations/accept", { token, password: "wrong password" });
      expect(r.status).toBe(401);
      expect(r.body.error).toBe("UNAUTHORIZED");
    }
    // Locked: even the right password is the same generic 401, on accept and on login.
    const locked = await anon.post("/api/auth/invitations/accept", { token, password: u.password });
    expect(locked.status).toBe(401);
    expect(locked.body.message).toBe("Invalid email or password");
    expect((await anon.post("/api/auth/login", { email: u.email, password: u.password })).status).toBe(401);
    expect(memberRole(server, ws, u.id)).toBeNull();
    expect(invitationRow(r0.body.id).status).toBe("pending");
    await Bun.sleep(1100);
    const ok = await anon.post("/api/auth/invitations/accept", { token, password: u.password });
    expect(ok.status).toBe(200);
    expect(memberRole(server, ws, u.id)).toBe("viewer");
  });

  test("a burst of concurrent wrong guesses on accept still locks the account", async () => {
    const u = await registerUser(server.url);
    const r0 = await invite({ email: u.email, role: "viewer" });
    const token = inviteToken(r0.body.url);
    const guesses = await Promise.all(
      Array.from({ length: 8 }, (_, i) => new Client(server.url).post("/api/auth/invitations/accept", { token, password: `wrong guess ${i}` })),
    );
    expect(guesses.map((r) => r.status)).toEqual(Array(8).fill(401));
    const right = await new Client(server.url).post("/api/auth/invitations/accept", { token, password: u.password });
    expect(right.status).toBe(401);
    expect(memberRole(server, ws, u.id)).toBeNull();
    const row = server.services.db.query<any, [string]>("SELECT failed_logins, locked_until FROM users WHERE id = ?").get(u.id);
    expect(row.failed_logins).toBeGreaterThanOrEqual(3);
    expect(row.locked_until).toBeGreaterThan(Date.now());
  });

  test("failed logins and failed accepts share one counter", async () => {
    const u = await registerUser(server.url);
    const r0 = await invite({ email: u.email, role: "viewer" });
    const anon = new Client(server.url);
    expect((await anon.post("/api/auth/login", { email: u.email, password: "nope nope" })).status).toBe(401);
    expect((await anon.post("/api/auth/login", { email: u.email, password: "nope nope" })).status).toBe(401);
    expect((await anon.post("/api/auth/invitations/accept", { token: inviteToken(r0.body.url), password: "nope nope" })).status).toBe(401);
    const row = server.services.db.query<any, [string]>("SELECT failed_logins, locked_until FROM users WHERE id = ?").get(u.id);
    expect(row.failed_logins).toBe(3);
    expect(row.locked_until).toBeGreaterThan(Date.now());
  });

  test("expired, revoked, used and unknown tokens are refused with a clear reason", async () => {
    const anon = new Client(server.url);
    const accept = (token: string) => anon.post("/api/auth/invitations/accept", { token, name: "Eve", password: "long enough password" });

    const expired = await invite({ email: newEmail(), role: "viewer" });
    server.services.db.query("UPDATE invitations SET expires_at = ? WHERE id = ?").run(new Date(Date.now() - 1000).toISOString(), expired.body.id);
    const e = await accept(inviteToken(expired.body.url));
    expect(e.status).toBe(400);
    expect(e.body.details).toMatchObject({ field: "token", reason: "expired" });
    expect(e.body.message).toContain("expired");

    const revoked = await invite({ email: newEmail(), role: "viewer" });
    await owner.client.delete(`/api/v1/workspaces/${ws}/invitations/${revoked.body.id}`);
    const rv = await accept(inviteToken(revoked.body.url));
    expect(rv.status).toBe(400);
    expect(rv.body.details.reason).toBe("revoked");

    const used = await invite({ email: newEmail(), role: "viewer" });
    expect((await accept(inviteToken(used.body.url))).status).toBe(201);
    const again = await accept(inviteToken(used.body.url));
    expect(again.status).toBe(400);
    expect(again.body.details.reason).toBe("used");

    const unknown = await accept("x".repeat(43));
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe("NOT_FOUND");

    const usersNamedEve = server.services.db.query("SELECT COUNT(*) AS n FROM users WHERE name = 'Eve'").get();
    expect(usersNamedEve).toEqual({ n: 1 });
  });

  test("a deleted workspace's invitation is 404", async () => {
    const extra = await owner.client.post("/api/v1/workspaces", { name: "Gone", slug: "invite-gone" });
    const r0 = await owner.client.post(`/api/v1/workspaces/${extra.body.id}/invitations`, { email: newEmail(), role: "viewer" });
    await owner.client.delete(`/api/v1/workspaces/${extra.body.id}`);
    const r = await new Client(server.url).post("/api/auth/invitations/accept", {
      token: inviteToken(r0.body.url),
      name: "Nobody",
      password: "long enough password",
    });
    expect(r.status).toBe(404);
    expect(server.services.db.query("SELECT COUNT(*) AS n FROM users WHERE name = 'Nobody'").get()).toEqual({ n: 0 });
  });

  test("a new account needs a name and a valid password; nothing is created otherwise", async () => {
    const r0 = await invite({ email: newEmail(), role: "viewer" });
    const token = inviteToken(r0.body.url);
    const anon = new Client(server.url);
    const noName = await anon.post("/api/auth/invitations/accept", { token, password: "long enough password" });
    expect(noName.status).toBe(400);
    expect(noName.body.details.field).toBe("name");
    const short = await anon.post("/api/auth/invitations/accept", { token, name: "Short", password: "short" });
    expect(short.status).toBe(400);
    expect(short.body.details.field).toBe("password");
    const extra = await anon.post("/api/auth/invitations/accept", { token, name: "X", password: "long enough password", role: "admin" });
    expect(extra.status).toBe(400);
    expect(extra.body.details.field).toBe("role");
    expect(invitationRow(r0.body.id).status).toBe("pending");
    expect(server.services.db.query<any, [string]>("SELECT COUNT(*) AS n FROM users WHERE email_normalized = ?").get(r0.body.email).n).toBe(0);
  });

  test("accepting never lowers a role the person gained meanwhile", async () => {
    const u = await registerUser(server.url);
    const viewerInvite = await invite({ email: u.email, role: "viewer" });
    // Before accepting, they join as editor through a share link.
    const link = await owner.client.post(`/api/v1/workspaces/${ws}/share-links`, { role: "editor" });
    expect((await u.client.post(`/api/v1/share-links/${link.body.token}/use`)).status).toBe(200);
    expect(memberRole(server, ws, u.id)).toBe("editor");
    const r = await u.client.post("/api/auth/invitations/accept", { token: inviteToken(viewerInvite.body.url), password: u.password });
    expect(r.status).toBe(200);
    expect(r.body.workspace.role).toBe("editor");
    expect(memberRole(server, ws, u.id)).toBe("editor");
    expect(invitationRow(viewerInvite.body.id).status).toBe("accepted");
    // Once a member, a new invitation to the address is refused up front.
    expect((await invite({ email: u.email, role: "viewer" })).status).toBe(409);
  });
});
