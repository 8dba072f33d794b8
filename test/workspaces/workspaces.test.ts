import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { memberWithRole } from "../access/support.ts";
import { startGitHttpRemote, type GitHttpRemote } from "../helpers/git-remote.ts";

let server: TestServer;
let owner: TestUser;
// Creating a workspace with a remote clones it: a loopback remote with basic auth and an empty branch.
let remote: GitHttpRemote;
beforeAll(async () => {
  server = await startTestServer({ GIT_ALLOWLIST_PRIVATE: "true" });
  owner = await registerUser(server.url);
  remote = await startGitHttpRemote({ branch: "docs/main", files: {}, auth: { username: "token", token: "secret" } });
});
afterAll(async () => {
  await server.close();
  await remote.close();
});

let slugCounter = 0;
const freshSlug = () => `space-${++slugCounter}`;

describe("listing", () => {
  test("a new user sees their starter workspace with their role", async () => {
    const u = await registerUser(server.url);
    const r = await u.client.get("/api/v1/workspaces");
    expect(r.status).toBe(200);
    expect(r.body.next_cursor).toBeNull();
    expect(r.body.items).toHaveLength(1);
    expect(r.body.items[0]).toMatchObject({ id: u.workspaceId, role: "super_admin", member_count: 1, deleted_at: null });
    // page_count is the number of live page records the ledger holds for the workspace.
    const live = server.services.db
      .query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM pages WHERE workspace_id = ? AND deleted_at IS NULL")
      .get(u.workspaceId)!.n;
    expect(r.body.items[0].page_count).toBe(live);
  });

  test("needs a credential", async () => {
    const r = await owner.client.get("/api/v1/workspaces", { token: null });
    expect(r.status).toBe(401);
    expect(r.body.error).toBe("UNAUTHORIZED");
  });

  test("includes workspaces joined in other organizations, with that role", async () => {
    const guest = await memberWithRole(server, owner, owner.workspaceId, "commenter");
    const r = await guest.client.get("/api/v1/workspaces");
    const joined = r.body.items.find((w: any) => w.id === owner.workspaceId);
    expect(joined.role).toBe("commenter");
    expect(r.body.items.find((w: any) => w.id === guest.workspaceId).role).toBe("super_admin");
  });

  test("a Super Admin sees every live workspace of the organization, member or not", async () => {
    const u = await registerUser(server.url);
    const created = await u.client.post("/api/v1/workspaces", { name: "Hidden", slug: freshSlug() });
    // Remove the Super Admin's own member row: the organization role still reaches the workspace.
    server.services.db.query("DELETE FROM workspace_members WHERE workspace_id = ? AND user_id = ?").run(created.body.id, u.id);
    const r = await u.client.get("/api/v1/workspaces");
    expect(r.body.items.map((w: any) => w.id)).toContain(created.body.id);
    expect(r.body.items.find((w: any) => w.id === created.body.id).role).toBe("super_admin");
  });

  test("pages with limit and cursor", async () => {
    const u = await registerUser(server.url);
    for (let i = 0; i < 3; i++) await u.client.post("/api/v1/workspaces", { name: `P${i}`, slug: freshSlug() });
    const first = await u.client.get("/api/v1/workspaces?limit=2");
    expect(first.body.items).toHaveLength(2);
    expect(first.body.next_cursor).toBeString();
    const second = await u.client.get(`/api/v1/workspaces?limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body.items).toHaveLength(2);
    expect(second.body.next_cursor).toBeNull();
    const ids = [...first.body.items, ...second.body.items].map((w: any) => w.id);
    expect(new Set(ids).size).toBe(4);
    const bad = await u.client.get("/api/v1/workspaces?cursor=nonsense");
    expect(bad.status).toBe(400);
    expect(bad.body.details.field).toBe("cursor");
  });
});

describe("creating", () => {
  test("the Super Admin creates a workspace and becomes its admin member", async () => {
    const slug = freshSlug();
    const r = await owner.client.post("/api/v1/workspaces", {
      name: "Handbook",
      slug,
      description: "How we work",
      git_remote: remote.authUrl,
      git_branch: "docs/main",
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      name: "Handbook",
      slug,
      description: "How we work",
      role: "super_admin",
      git_remote: remote.url,
      git_branch: "docs/main",
      git_auto_commit: true,
      sync_interval: 300,
      sync_status: "synced",
      editor_can_create_pages: true,
      editor_can_delete_pages: false,
      published: false,
      page_count: 0,
      member_count: 1,
      deleted_at: null,
    });
    expect(r.body.id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    const row = server.services.db.query<any, [string]>("SELECT * FROM workspaces WHERE id = ?").get(r.body.id);
    // Stored as given (git needs the credentials); only shown without them.
    expect(row.git_remote).toBe(remote.authUrl);
    expect(row.webhook_secret).toMatch(/^[0-9a-f]{64}$/);
    const member = server.services.db
      .query<any, [string]>("SELECT user_id, role FROM workspace_members WHERE workspace_id = ?")
      .all(r.body.id);
    expect(member).toEqual([{ user_id: owner.id, role: "admin" }]);
    const get = await owner.client.get(`/api/v1/workspaces/${r.body.id}`);
    expect(get.status).toBe(200);
    expect(get.body.slug).toBe(slug);
    const bySlug = await owner.client.get(`/api/v1/workspaces/${slug}`);
    expect(bySlug.body.id).toBe(r.body.id);
  });

  test("a member who is not Super Admin of the caller's organization cannot create there", async () => {
    // Everybody owns an organization; the workspace always lands in the caller's own one.
    const guest = await memberWithRole(server, owner, owner.workspaceId, "admin");
    const r = await guest.client.post("/api/v1/workspaces", { name: "Mine", slug: freshSlug() });
    expect(r.status).toBe(201);
    const orgOf = (id: string) => server.services.db.query<any, [string]>("SELECT org_id FROM workspaces WHERE id = ?").get(id).org_id;
    expect(orgOf(r.body.id)).toBe(orgOf(guest.workspaceId));
    expect(orgOf(r.body.id)).not.toBe(orgOf(owner.workspaceId));
    // Demote the guest from Super Admin of their own organization: no more creating.
    server.services.db.query("UPDATE org_members SET role = 'member' WHERE user_id = ?").run(guest.id);
    const refused = await guest.client.post("/api/v1/workspaces", { name: "Nope", slug: freshSlug() });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe("FORBIDDEN");
  });

  test("slug rules", async () => {
    const bad = ["Upper", "has space", "..", "a..b", "ünïcode", "a".repeat(65), "-lead", "trail-", "a--b", "a/b", "", "a_b", "docs.md"];
    for (const slug of bad) {
      const r = await owner.client.post("/api/v1/workspaces", { name: "Bad", slug });
      expect({ slug, status: r.status }).toEqual({ slug, status: 400 });
      expect(r.body.error).toBe("VALIDATION_ERROR");
      expect(r.body.details.field).toBe("slug");
    }
    const max = await owner.client.post("/api/v1/workspaces", { name: "Max", slug: "a".repeat(64) });
    expect(max.status).toBe(201);
    const count = server.services.db.query<any, []>("SELECT COUNT(*) AS n FROM workspaces WHERE name = 'Bad'").get();
    expect(count.n).toBe(0);
  });

  test("a taken slug is 409, across organizations", async () => {
    const slug = freshSlug();
    expect((await owner.client.post("/api/v1/workspaces", { name: "One", slug })).status).toBe(201);
    const other = await registerUser(server.url);
    const r = await other.client.post("/api/v1/workspaces", { name: "Two", slug });
    expect(r.status).toBe(409);
    expect(r.body.error).toBe("CONFLICT");
    expect(r.body.details.field).toBe("slug");
  });

  test("git remote shapes", async () => {
    const good = [
      "https://github.com/acme/docs.git",
      "http://127.0.0.1:8080/repo.git",
      "ssh://git@gitlab.com:2222/acme/docs.git",
      "git@github.com:acme/docs.git",
      "git@bitbucket.org:acme/docs",
    ];
    // These shapes pass validation; the clone that follows fails here (no such servers), and says so.
    for (const git_remote of good) {
      const r = await owner.client.post("/api/v1/workspaces", { name: "Remote", slug: freshSlug(), git_remote });
      expect({ git_remote, status: r.status, field: r.body.details?.field }).toEqual({ git_remote, status: 400, field: "git_remote" });
      expect(["unreachable", "auth", "branch_not_found"]).toContain(r.body.details.reason);
    }
    const bad = [
      "file:///etc/passwd",
      "/srv/git/repo.git",
      "ext::sh -c touch% /tmp/pwned",
      "-uploadpack=touch /tmp/x",
      "ftp://example.com/repo.git",
      "https://",
      "https://github.com",
      "github.com:acme/docs.git",
      "git@github.com:-oProxyCommand=x",
      "https://github.com/acme/docs.git\nfoo",
      "not a url",
    ];
    for (const git_remote of bad) {
      const r = await owner.client.post("/api/v1/workspaces", { name: "Remote", slug: freshSlug(), git_remote });
      expect({ git_remote, status: r.status }).toEqual({ git_remote, status: 400 });
      expect(r.body.details.field).toBe("git_remote");
      expect(r.body.details.reason).toBeUndefined(); // refused by shape, before any clone
    }
    for (const git_branch of ["-x", "a..b", "main.lock", "has space", "/lead", "trail/", ".hidden"]) {
      const r = await owner.client.post("/api/v1/workspaces", { name: "Branch", slug: freshSlug(), git_branch });
      expect({ git_branch, status: r.status }).toEqual({ git_branch, status: 400 });
      expect(r.body.details.field).toBe("git_branch");
    }
  });

  test("bad bodies: missing name, unknown field, not an object", async () => {
    const missing = await owner.client.post("/api/v1/workspaces", { slug: freshSlug() });
    expect(missing.status).toBe(400);
    expect(missing.body.details.field).toBe("name");
    const unknown = await owner.client.post("/api/v1/workspaces", { name: "X", slug: freshSlug(), org_id: "01ARZ3NDEKTSV4RRFFQ69G5FAV" });
    expect(unknown.status).toBe(400);
    expect(unknown.body.details.field).toBe("org_id");
    const array = await owner.client.post("/api/v1/workspaces", [1, 2]);
    expect(array.status).toBe(400);
    const noAuth = await owner.client.post("/api/v1/workspaces", { name: "X", slug: freshSlug() }, { token: null });
    expect(noAuth.status).toBe(401);
  });
});

describe("deleting", () => {
  test("soft delete by the Super Admin: 204, then 404 everywhere, and the slug is free again", async () => {
    const slug = freshSlug();
    const created = await owner.client.post("/api/v1/workspaces", { name: "Doomed", slug });
    const id = created.body.id;
    const del = await owner.client.delete(`/api/v1/workspaces/${id}`);
    expect(del.status).toBe(204);
    const row = server.services.db.query<any, [string]>("SELECT deleted_at FROM workspaces WHERE id = ?").get(id);
    expect(row.deleted_at).toBeString();
    for (const [method, path] of [
      ["GET", `/api/v1/workspaces/${id}`],
      ["DELETE", `/api/v1/workspaces/${id}`],
      ["GET", `/api/v1/workspaces/${slug}`],
      ["GET", `/api/v1/workspaces/${id}/admin/settings`],
      ["GET", `/api/v1/workspaces/${id}/admin/members`],
      ["GET", `/api/v1/workspaces/${id}/invitations`],
      ["GET", `/api/v1/workspaces/${id}/share-links`],
    ] as const) {
      const r = await owner.client.request(method, path);
      expect({ method, path, status: r.status }).toEqual({ method, path, status: 404 });
    }
    const list = await owner.client.get("/api/v1/workspaces?limit=200");
    expect(list.body.items.map((w: any) => w.id)).not.toContain(id);
    const again = await owner.client.post("/api/v1/workspaces", { name: "Reborn", slug });
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(id);
  });

  test("an admin member who is not the Super Admin gets 403; a stranger 404", async () => {
    const created = await owner.client.post("/api/v1/workspaces", { name: "Kept", slug: freshSlug() });
    const admin = await memberWithRole(server, owner, created.body.id, "admin");
    const r = await admin.client.delete(`/api/v1/workspaces/${created.body.id}`);
    expect(r.status).toBe(403);
    const stranger = await registerUser(server.url);
    expect((await stranger.client.delete(`/api/v1/workspaces/${created.body.id}`)).status).toBe(404);
    expect((await owner.client.get(`/api/v1/workspaces/${created.body.id}`)).status).toBe(200);
  });
});

describe("API keys", () => {
  test("a key limited to one workspace lists and reads only that one", async () => {
    const extra = await owner.client.post("/api/v1/workspaces", { name: "Keyed", slug: freshSlug() });
    const key = await owner.client.post("/api/v1/api-keys", { name: "ci", workspace_id: extra.body.id });
    expect(key.status).toBe(201);
    const list = await owner.client.get("/api/v1/workspaces", { token: key.body.key });
    expect(list.body.items.map((w: any) => w.id)).toEqual([extra.body.id]);
    expect((await owner.client.get(`/api/v1/workspaces/${owner.workspaceId}`, { token: key.body.key })).status).toBe(404);
    const create = await owner.client.post("/api/v1/workspaces", { name: "Via key", slug: freshSlug() }, { token: key.body.key });
    expect(create.status).toBe(403);
  });

  test("a read-only key cannot create or delete", async () => {
    const key = await owner.client.post("/api/v1/api-keys", { name: "ro", scopes: ["read"] });
    const create = await owner.client.post("/api/v1/workspaces", { name: "RO", slug: freshSlug() }, { token: key.body.key });
    expect(create.status).toBe(403);
    const del = await owner.client.delete(`/api/v1/workspaces/${owner.workspaceId}`, { token: key.body.key });
    expect(del.status).toBe(403);
    expect((await owner.client.get(`/api/v1/workspaces/${owner.workspaceId}`, { token: key.body.key })).status).toBe(200);
  });
});
