import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, tempDir, type TestServer } from "../helpers/server.ts";
import { Client } from "../helpers/client.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { memberRole } from "./support.ts";
import { sha256Hex } from "../../src/core/crypto.ts";

/**
 * Share links on an invite-only instance: the people who use them registered while sign-up was
 * open, then the instance restarted with QUIRE_DISABLE_SIGNUP=true.
 */
let server: TestServer;
let owner: TestUser;
let ws: string;
const people: TestUser[] = [];
const dataDir = tempDir();

beforeAll(async () => {
  const open = await startTestServer({}, { dataDir, keepDir: true });
  owner = await registerUser(open.url);
  for (let i = 0; i < 10; i++) people.push(await registerUser(open.url));
  await open.close();
  server = await startTestServer({ QUIRE_DISABLE_SIGNUP: "true" }, { dataDir });
  for (const u of [owner, ...people]) u.client = new Client(server.url, u.client.ip).withToken(u.accessToken);
  ws = owner.workspaceId;
});
afterAll(() => server.close());

const links = `/api/v1/workspaces/${"WS"}/share-links`;
const path = () => links.replace("WS", ws);
const use = (u: TestUser, token: string) => u.client.post(`/api/v1/share-links/${token}/use`);
const linkRow = (id: string) => server.services.db.query<any, [string]>("SELECT * FROM share_links WHERE id = ?").get(id);
let next = 0;
const person = () => people[next++]!;

describe("managing", () => {
  test("create shows the token once; only its hash is stored; the list never shows it", async () => {
    const r = await owner.client.post(path(), { role: "commenter", max_uses: 5, expires_at: "2099-01-01T00:00:00+02:00" });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ role: "commenter", uses: 0, max_uses: 5, expires_at: "2098-12-31T22:00:00.000Z", active: true });
    expect(r.body.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const row = linkRow(r.body.id);
    expect(row.token_hash).toBe(sha256Hex(r.body.token));
    expect(JSON.stringify(row)).not.toContain(r.body.token);
    const list = await owner.client.get(path());
    expect(list.status).toBe(200);
    const listed = list.body.items.find((l: any) => l.id === r.body.id);
    expect(listed.token).toBeUndefined();
    expect(JSON.stringify(list.body)).not.toContain(r.body.token);
  });

  test("defaults and bad input", async () => {
    const plain = await owner.client.post(path(), {});
    expect(plain.status).toBe(201);
    expect(plain.body).toMatchObject({ role: "viewer", max_uses: null, expires_at: null });
    for (const [body, field] of [
      [{ role: "admin" }, "role"],
      [{ role: "owner" }, "role"],
      [{ max_uses: 0 }, "max_uses"],
      [{ max_uses: 1.5 }, "max_uses"],
      [{ max_uses: "3" }, "max_uses"],
      [{ expires_at: "tomorrow" }, "expires_at"],
      [{ expires_at: "2001-01-01T00:00:00Z" }, "expires_at"],
      [{ uses: 100 }, "uses"],
    ] as const) {
      const r = await owner.client.post(path(), body);
      expect({ body, status: r.status, field: r.body.details?.field }).toEqual({ body, status: 400, field });
    }
  });

  test("delete revokes: the link leaves the list and stops working", async () => {
    const r = await owner.client.post(path(), { role: "viewer" });
    expect((await owner.client.delete(`${path()}/${r.body.id}`)).status).toBe(204);
    expect(linkRow(r.body.id).revoked_at).toBeString();
    expect((await owner.client.get(path())).body.items.map((l: any) => l.id)).not.toContain(r.body.id);
    expect((await owner.client.delete(`${path()}/${r.body.id}`)).status).toBe(404);
    const u = person();
    const refused = await use(u, r.body.token);
    expect(refused.status).toBe(404);
    expect(memberRole(server, ws, u.id)).toBeNull();
  });
});

describe("using", () => {
  test("a signed-in user joins with the link's role in invite-only mode, and the use is counted", async () => {
    const link = await owner.client.post(path(), { role: "editor", max_uses: 2 });
    const u = person();
    expect((await u.client.get(`/api/v1/workspaces/${ws}`)).status).toBe(404);
    const r = await use(u, link.body.token);
    expect(r.status).toBe(200);
    expect(r.body.role).toBe("editor");
    expect(r.body.joined).toBe(true);
    expect(r.body.workspace).toMatchObject({ id: ws, role: "editor" });
    expect(memberRole(server, ws, u.id)).toBe("editor");
    expect(linkRow(link.body.id).uses).toBe(1);
    expect((await u.client.get(`/api/v1/workspaces/${ws}`)).body.role).toBe("editor");
    // The token sits in the URL path; the request log must not keep it.
    await Bun.sleep(20);
    expect(server.logs.join("\n")).toContain("/api/v1/share-links/");
    expect(server.logs.join("\n")).not.toContain(link.body.token);
  });

  test("a used-up link is refused and adds nobody", async () => {
    const link = await owner.client.post(path(), { role: "viewer", max_uses: 1 });
    const first = person();
    const second = person();
    expect((await use(first, link.body.token)).status).toBe(200);
    const r = await use(second, link.body.token);
    expect(r.status).toBe(400);
    expect(r.body.details).toMatchObject({ field: "token", reason: "exhausted" });
    expect(memberRole(server, ws, second.id)).toBeNull();
    expect(linkRow(link.body.id).uses).toBe(1);
    const listed = (await owner.client.get(path())).body.items.find((l: any) => l.id === link.body.id);
    expect(listed).toMatchObject({ uses: 1, active: false });
  });

  test("concurrent uses never exceed max_uses", async () => {
    const link = await owner.client.post(path(), { role: "viewer", max_uses: 2 });
    const trio = [person(), person(), person()];
    const results = await Promise.all(trio.map((u) => use(u, link.body.token)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 400]);
    expect(linkRow(link.body.id).uses).toBe(2);
    expect(trio.filter((u) => memberRole(server, ws, u.id) !== null)).toHaveLength(2);
  });

  test("an expired link is refused", async () => {
    const link = await owner.client.post(path(), { role: "viewer", expires_at: new Date(Date.now() + 3600_000).toISOString() });
    server.services.db.query("UPDATE share_links SET expires_at = ? WHERE id = ?").run(new Date(Date.now() - 1000).toISOString(), link.body.id);
    const u = person();
    const r = await use(u, link.body.token);
    expect(r.status).toBe(400);
    expect(r.body.details.reason).toBe("expired");
    expect(r.body.message).toContain("expired");
    expect(memberRole(server, ws, u.id)).toBeNull();
    expect(linkRow(link.body.id).uses).toBe(0);
  });

  test("joining again never downgrades and spends no use; a higher role upgrades", async () => {
    const editor = await owner.client.post(path(), { role: "editor" });
    const viewer = await owner.client.post(path(), { role: "viewer" });
    const u = person();
    expect((await use(u, viewer.body.token)).status).toBe(200);
    expect(memberRole(server, ws, u.id)).toBe("viewer");
    const again = await use(u, viewer.body.token);
    expect(again.status).toBe(200);
    expect(again.body.joined).toBe(false);
    expect(linkRow(viewer.body.id).uses).toBe(1);
    expect((await use(u, editor.body.token)).body.role).toBe("editor");
    expect(memberRole(server, ws, u.id)).toBe("editor");
    const down = await use(u, viewer.body.token);
    expect(down.status).toBe(200);
    expect(down.body.role).toBe("editor");
    expect(memberRole(server, ws, u.id)).toBe("editor");
    expect(linkRow(viewer.body.id).uses).toBe(1);

    await owner.client.put(`/api/v1/workspaces/${ws}/admin/members/${u.id}/role`, { role: "admin" });
    expect((await use(u, editor.body.token)).body.role).toBe("admin");
    expect(memberRole(server, ws, u.id)).toBe("admin");
    // The Super Admin spends nothing and gains no member row change.
    expect((await use(owner, editor.body.token)).body.role).toBe("super_admin");
    expect(memberRole(server, ws, owner.id)).toBe("admin");
  });

  test("needs a signed-in session: anonymous and API-key callers are refused", async () => {
    const link = await owner.client.post(path(), { role: "viewer" });
    const anon = await new Client(server.url).post(`/api/v1/share-links/${link.body.token}/use`);
    expect(anon.status).toBe(401);
    const u = person();
    const key = (await u.client.post("/api/v1/api-keys", { name: "k", scopes: ["admin"] })).body.key;
    const viaKey = await u.client.post(`/api/v1/share-links/${link.body.token}/use`, undefined, { token: key });
    expect(viaKey.status).toBe(401);
    expect(memberRole(server, ws, u.id)).toBeNull();
    expect(linkRow(link.body.id).uses).toBe(0);
    expect((await u.client.post("/api/v1/share-links/not-a-real-token/use")).status).toBe(404);
    expect((await u.client.post(`/api/v1/share-links/${"a".repeat(600)}/use`)).status).toBe(404);
  });

  test("a link of a deleted workspace is 404", async () => {
    const extra = await owner.client.post("/api/v1/workspaces", { name: "Temp", slug: "share-temp" });
    const link = await owner.client.post(`/api/v1/workspaces/${extra.body.id}/share-links`, { role: "viewer" });
    await owner.client.delete(`/api/v1/workspaces/${extra.body.id}`);
    const u = owner; // anyone signed in
    expect((await use(u, link.body.token)).status).toBe(404);
  });
});
