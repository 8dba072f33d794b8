import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { Client } from "../helpers/client.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { addMember, starterWorkspace } from "./support.ts";
import { connect } from "../realtime/ws-client.ts";

let server: TestServer;
let owner: TestUser; // super admin of the workspace's organization
let ws: { id: string; slug: string };
let commenter: TestUser;
let commenter2: TestUser;
let viewer: TestUser;
let admin: TestUser;
let stranger: TestUser;

beforeAll(async () => {
  server = await startTestServer();
  owner = await registerUser(server.url, { name: "Olivia Owner" });
  ws = starterWorkspace(server, owner.id);
  commenter = await registerUser(server.url, { name: "Carl Commenter" });
  commenter2 = await registerUser(server.url, { name: "Cora Second" });
  viewer = await registerUser(server.url, { name: "Vera Viewer" });
  admin = await registerUser(server.url, { name: "Ada Admin" });
  stranger = await registerUser(server.url, { name: "Stan Stranger" });
  addMember(server, ws.id, commenter.id, "commenter");
  addMember(server, ws.id, commenter2.id, "commenter");
  addMember(server, ws.id, viewer.id, "viewer");
  addMember(server, ws.id, admin.id, "admin");
  // Comments are on pages that exist.
  for (const path of ["guides/setup", "threads", "mentions", "edit", "delete", "mine", "resolve", "list/paged", "list/other", "live"]) {
    expect((await page(owner, ws.slug, path)).status).toBe(201);
  }
});

const page = (u: TestUser, slug: string, path: string, body = "") => u.client.post(`/api/v1/content/${slug}/${path}`, { title: path, body });
afterAll(() => server.close());

const post = (u: TestUser, body: unknown, workspace = ws.id) => u.client.post(`/api/v1/workspaces/${workspace}/comments`, body);
const activityRows = (action: string) =>
  server.services.db
    .query<{ action: string; actor_id: string; page_path: string; details: string }, [string, string]>(
      "SELECT action, actor_id, page_path, details FROM activity WHERE workspace_id = ? AND action = ? ORDER BY id",
    )
    .all(ws.id, action);

describe("creating", () => {
  test("a commenter comments on a page by path: 201 with the documented record, a row, and a comment_added activity row", async () => {
    const r = await post(commenter, { page_path: "guides/setup", body: "Step 3 is unclear.", anchor: "run the installer" });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: expect.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/),
      workspace_id: ws.id,
      page_path: "guides/setup.md",
      page_id: server.services.db.query<{ id: string }, [string]>("SELECT id FROM pages WHERE path = 'guides/setup.md' AND workspace_id = ?").get(ws.id)!.id,
      parent_id: null,
      author: { id: commenter.id, name: "Carl Commenter" },
      body: "Step 3 is unclear.",
      mentions: [],
      anchor: "run the installer",
      resolved: false,
      resolved_by: null,
      resolved_at: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const row = server.services.db.query<{ body: string }, [string]>("SELECT body FROM comments WHERE id = ?").get(r.body.id);
    expect(row?.body).toBe("Step 3 is unclear.");
    const act = activityRows("comment_added").find((a) => JSON.parse(a.details).comment_id === r.body.id);
    expect(act).toMatchObject({ actor_id: commenter.id, page_path: "guides/setup.md" });
  });

  test("a comment on an existing page carries its page_id (page written through the content API)", async () => {
    const created = await owner.client.post(`/api/v1/content/${ws.slug}/reference/api.md`, { title: "API", body: "Endpoints." });
    expect(created.status).toBe(201);
    const r = await post(commenter, { page_path: "reference/api.md", body: "Add examples" });
    expect(r.status).toBe(201);
    expect(r.body.page_id).toBe(created.body.page_id);
  });

  test("a viewer may not comment (403) and nothing is written", async () => {
    const before = server.services.db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM comments").get()!.n;
    const r = await post(viewer, { page_path: "a.md", body: "I only read" });
    expect(r.status).toBe(403);
    expect(r.body.error).toBe("FORBIDDEN");
    expect(server.services.db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM comments").get()!.n).toBe(before);
  });

  test("another organization's workspace is 404 for reading and writing", async () => {
    expect((await post(stranger, { page_path: "a.md", body: "hi" })).status).toBe(404);
    expect((await stranger.client.get(`/api/v1/workspaces/${ws.id}/comments`)).status).toBe(404);
  });

  test("bad input: missing body, empty body, unknown fields, bad paths, bad parent", async () => {
    const cases: Array<[unknown, string]> = [
      [{ page_path: "a.md" }, "body"],
      [{ page_path: "a.md", body: "   " }, "body"],
      [{ page_path: "a.md", body: "x".repeat(10_001) }, "body"],
      [{ body: "no page" }, "page_path"],
      [{ page_path: "../../etc/passwd", body: "x" }, "page_path"],
      [{ page_path: ".git/config", body: "x" }, "page_path"],
      [{ page_path: "/abs.md", body: "x" }, "page_path"],
      [{ page_path: "a\u0000.md", body: "x" }, "page_path"],
      // The ledger's path rules: nothing a page could never be named.
      [{ page_path: "%2e%2e/secret.md", body: "x" }, "page_path"],
      [{ page_path: "C:/windows.md", body: "x" }, "page_path"],
      [{ page_path: "assets/logo.md", body: "x" }, "page_path"],
      [{ page_path: "what?.md", body: "x" }, "page_path"],
      [{ page_path: "a.md", body: "x", author_id: stranger.id }, ""],
      [{ page_path: "a.md", body: "x", parent_id: "not-a-ulid" }, "parent_id"],
    ];
    for (const [body, field] of cases) {
      const r = await post(commenter, body);
      expect(r.status).toBe(400);
      expect(r.body.error).toBe("VALIDATION_ERROR");
      if (field) expect(r.body.details.field).toBe(field);
    }
    const missingParent = await post(commenter, { page_path: "a.md", body: "x", parent_id: "01ARZ3NDEKTSV4RRFFQ69G5FAV" });
    expect(missingParent.status).toBe(404);
    const badJson = await commenter.client.request("POST", `/api/v1/workspaces/${ws.id}/comments`, {
      body: "{not json",
      headers: { "content-type": "application/json" },
    });
    expect(badJson.status).toBe(400);
  });

  test("without credentials 401", async () => {
    const r = await new Client(server.url).post(`/api/v1/workspaces/${ws.id}/comments`, { page_path: "a.md", body: "x" });
    expect(r.status).toBe(401);
  });
});

describe("threads and mentions", () => {
  test("a reply to a reply attaches to the thread's root and inherits its page", async () => {
    const root = (await post(commenter, { page_path: "threads.md", body: "Root" })).body;
    const reply = (await post(commenter2, { parent_id: root.id, body: "Reply" })).body;
    expect(reply.parent_id).toBe(root.id);
    expect(reply.page_path).toBe("threads.md");
    const nested = await post(commenter, { parent_id: reply.id, body: "Reply to the reply" });
    expect(nested.status).toBe(201);
    expect(nested.body.parent_id).toBe(root.id);
    const otherPage = await post(commenter, { parent_id: root.id, page_path: "elsewhere.md", body: "x" });
    expect(otherPage.status).toBe(400);
    expect(otherPage.body.details.field).toBe("page_path");
  });

  test("a parent in another workspace is not found", async () => {
    const theirs = starterWorkspace(server, stranger.id);
    await page(stranger, theirs.slug, "x");
    const foreign = (await post(stranger, { page_path: "x.md", body: "mine" }, theirs.id)).body;
    const r = await post(commenter, { parent_id: foreign.id, body: "sneaky" });
    expect(r.status).toBe(404);
  });

  test("@name and @email resolve to workspace members only", async () => {
    const r = await post(commenter, {
      page_path: "mentions.md",
      body: `Thanks @Ada Admin and @${viewer.email}! Also @Stan Stranger, @nobody and mail@${owner.email.split("@")[1]}.`,
    });
    expect(r.status).toBe(201);
    expect(r.body.mentions.sort()).toEqual([admin.id, viewer.id].sort());
    const owners = await post(commenter, { page_path: "mentions.md", body: "cc @olivia owner" });
    expect(owners.body.mentions).toEqual([owner.id]);
  });
});

describe("editing and deleting", () => {
  test("the author edits; someone else's comment cannot be edited (403) and stays unchanged", async () => {
    const c = (await post(commenter, { page_path: "edit.md", body: "Original" })).body;
    const other = await commenter2.client.put(`/api/v1/comments/${c.id}`, { body: "Hijacked" });
    expect(other.status).toBe(403);
    const viewerTry = await viewer.client.put(`/api/v1/comments/${c.id}`, { body: "Hijacked" });
    expect(viewerTry.status).toBe(403);
    const strangerTry = await stranger.client.put(`/api/v1/comments/${c.id}`, { body: "Hijacked" });
    expect(strangerTry.status).toBe(404);
    expect((await commenter.client.get(`/api/v1/comments/${c.id}`)).body.body).toBe("Original");
    const own = await commenter.client.put(`/api/v1/comments/${c.id}`, { body: "Edited, cc @Cora Second" });
    expect(own.status).toBe(200);
    expect(own.body.body).toBe("Edited, cc @Cora Second");
    expect(own.body.mentions).toEqual([commenter2.id]);
    expect(own.body.updated_at >= c.updated_at).toBe(true);
    const bad = await commenter.client.put(`/api/v1/comments/${c.id}`, { body: "" });
    expect(bad.status).toBe(400);
  });

  test("an admin may edit and delete anyone's comment; deleting a root deletes its replies", async () => {
    const root = (await post(commenter, { page_path: "delete.md", body: "Root" })).body;
    const reply = (await post(commenter2, { parent_id: root.id, body: "Reply" })).body;
    expect((await admin.client.put(`/api/v1/comments/${reply.id}`, { body: "Moderated" })).status).toBe(200);
    expect((await commenter2.client.delete(`/api/v1/comments/${root.id}`)).status).toBe(403);
    const del = await admin.client.delete(`/api/v1/comments/${root.id}`);
    expect(del.status).toBe(204);
    expect((await commenter.client.get(`/api/v1/comments/${root.id}`)).status).toBe(404);
    expect((await commenter.client.get(`/api/v1/comments/${reply.id}`)).status).toBe(404);
    expect(server.services.db.query("SELECT id FROM comments WHERE id IN (?, ?)").all(root.id, reply.id)).toEqual([]);
  });

  test("the author deletes their own comment; unknown ids are 404", async () => {
    const c = (await post(commenter2, { page_path: "mine.md", body: "Oops" })).body;
    expect((await commenter2.client.delete(`/api/v1/comments/${c.id}`)).status).toBe(204);
    expect((await commenter2.client.delete(`/api/v1/comments/${c.id}`)).status).toBe(404);
    expect((await commenter2.client.put(`/api/v1/comments/nonsense`, { body: "x" })).status).toBe(404);
  });
});

describe("resolving", () => {
  test("commenter+ resolves and reopens a thread; acting on a reply changes the root; activity is written once", async () => {
    const root = (await post(commenter, { page_path: "resolve.md", body: "Typo in line 2" })).body;
    const reply = (await post(admin, { parent_id: root.id, body: "Fixed" })).body;
    expect((await viewer.client.post(`/api/v1/comments/${root.id}/resolve`)).status).toBe(403);
    expect((await stranger.client.post(`/api/v1/comments/${root.id}/resolve`)).status).toBe(404);
    const before = activityRows("comment_resolved").length;
    const r = await commenter2.client.post(`/api/v1/comments/${reply.id}/resolve`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: root.id, resolved: true, resolved_by: commenter2.id });
    expect(r.body.resolved_at).toEqual(expect.any(String));
    // Resolving again changes nothing and writes no second activity row.
    expect((await commenter.client.post(`/api/v1/comments/${root.id}/resolve`)).body.resolved).toBe(true);
    const rows = activityRows("comment_resolved");
    expect(rows.length).toBe(before + 1);
    expect(rows[rows.length - 1]).toMatchObject({ actor_id: commenter2.id, page_path: "resolve.md" });
    const open = await commenter.client.post(`/api/v1/comments/${root.id}/unresolve`);
    expect(open.status).toBe(200);
    expect(open.body).toMatchObject({ resolved: false, resolved_by: null, resolved_at: null });
  });
});

describe("listing", () => {
  test("filtered by page path (with or without .md), oldest first, paginated with an opaque cursor; resolved filter", async () => {
    const page = "list/paged.md";
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await post(commenter, { page_path: page, body: `c${i}` })).body.id);
    await post(commenter, { page_path: "list/other.md", body: "elsewhere" });
    const first = await viewer.client.get(`/api/v1/workspaces/${ws.id}/comments?page=list/paged&limit=2`);
    expect(first.status).toBe(200);
    expect(first.body.items.map((c: any) => c.id)).toEqual(ids.slice(0, 2));
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await viewer.client.get(`/api/v1/workspaces/${ws.id}/comments?page=${page}&limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body.items.map((c: any) => c.id)).toEqual(ids.slice(2, 4));
    const third = await viewer.client.get(`/api/v1/workspaces/${ws.id}/comments?page=${page}&limit=2&cursor=${second.body.next_cursor}`);
    expect(third.body.items.map((c: any) => c.id)).toEqual(ids.slice(4));
    expect(third.body.next_cursor).toBeNull();

    await commenter.client.post(`/api/v1/comments/${ids[0]}/resolve`);
    const resolved = await viewer.client.get(`/api/v1/workspaces/${ws.id}/comments?page=${page}&resolved=true`);
    expect(resolved.body.items.map((c: any) => c.id)).toEqual([ids[0]]);
    const openOnes = await viewer.client.get(`/api/v1/workspaces/${ws.id}/comments?page=${page}&resolved=false`);
    expect(openOnes.body.items.length).toBe(4);

    const all = await viewer.client.get(`/api/v1/workspaces/${ws.id}/comments?limit=100`);
    expect(all.body.items.every((c: any) => c.workspace_id === ws.id)).toBe(true);
  });

  test("bad list parameters are 400 naming the field", async () => {
    for (const [query, field] of [
      ["limit=0", "limit"],
      ["limit=101", "limit"],
      ["cursor=garbage", "cursor"],
      ["page=../x", "page"],
      ["resolved=maybe", "resolved"],
    ]) {
      const r = await viewer.client.get(`/api/v1/workspaces/${ws.id}/comments?${query}`);
      expect(r.status).toBe(400);
      expect(r.body.details.field).toBe(field);
    }
  });
});

describe("live events", () => {
  test("readers of the workspace see comment-added and comment-updated on the stream", async () => {
    const live = await connect(server, viewer);
    const c = (await post(commenter, { page_path: "live.md", body: "Streaming" })).body;
    const added = await live.next((f) => f.type === "comment-added" && f.payload.comment_id === c.id);
    expect(added.payload).toMatchObject({ workspace_id: ws.id, page_path: "live.md", parent_id: null, actor: commenter.id });
    await commenter.client.post(`/api/v1/comments/${c.id}/resolve`);
    const resolved = await live.next((f) => f.type === "comment-updated" && f.payload.comment_id === c.id);
    expect(resolved.payload.resolved).toBe(true);
    live.close();
  });
});
