import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { Client } from "../helpers/client.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { addMember, starterWorkspace } from "./support.ts";

let server: TestServer;
let owner: TestUser;
let viewer: TestUser;
let stranger: TestUser;
let ws: { id: string; slug: string };

beforeAll(async () => {
  server = await startTestServer();
  owner = await registerUser(server.url, { name: "Olga Owner" });
  viewer = await registerUser(server.url);
  stranger = await registerUser(server.url);
  ws = starterWorkspace(server, owner.id);
  addMember(server, ws.id, viewer.id, "viewer");
});
afterAll(() => server.close());

const feed = (u: TestUser, query = "", workspace = ws.id) => u.client.get(`/api/v1/workspaces/${workspace}/activity${query}`);

describe("activity feed", () => {
  test("newest first with actor, page and details; filtered by action; paginated with an opaque cursor", async () => {
    const created = await owner.client.post(`/api/v1/content/${ws.slug}/feed/one.md`, { title: "One", body: "first" });
    expect(created.status).toBe(201);
    const updated = await owner.client.put(`/api/v1/content/${ws.slug}/feed/one.md`, { body: "second", lastKnownHash: created.body.content_hash });
    expect(updated.status).toBe(200);
    const comment = await owner.client.post(`/api/v1/workspaces/${ws.id}/comments`, { page_path: "feed/one.md", body: "Looks good" });
    expect(comment.status).toBe(201);

    const r = await feed(viewer, "?limit=3");
    expect(r.status).toBe(200);
    expect(r.body.items.map((a: any) => a.action)).toEqual(["comment_added", "page_updated", "page_created"]);
    expect(r.body.items[0]).toEqual({
      id: expect.any(String),
      action: "comment_added",
      actor: { id: owner.id, name: "Olga Owner" },
      page_path: "feed/one.md",
      page_id: created.body.page_id,
      details: expect.objectContaining({ comment_id: comment.body.id }),
      created_at: expect.any(String),
    });
    expect(r.body.next_cursor).toEqual(expect.any(String));

    // Walking the cursor visits every row exactly once, newest first.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await feed(viewer, `?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      seen.push(...page.body.items.map((a: any) => a.id));
      cursor = page.body.next_cursor;
    } while (cursor);
    const all = server.services.db
      .query<{ id: string }, [string]>("SELECT id FROM activity WHERE workspace_id = ? ORDER BY id DESC")
      .all(ws.id)
      .map((x) => x.id);
    expect(seen).toEqual(all);

    const onlyCreated = await feed(viewer, "?action=page_created&limit=100");
    expect(onlyCreated.body.items.length).toBeGreaterThan(0);
    expect(onlyCreated.body.items.every((a: any) => a.action === "page_created")).toBe(true);
    expect((await feed(viewer, "?action=no_such_action")).body.items).toEqual([]);
  });

  test("per-page history follows the page across a move", async () => {
    const c = await owner.client.post(`/api/v1/content/${ws.slug}/history/before.md`, { title: "Moving", body: "x" });
    expect(c.status).toBe(201);
    const moved = await owner.client.patch(`/api/v1/content/${ws.slug}/history/before.md`, { new_path: "history/after.md" });
    expect(moved.status).toBe(200);
    await owner.client.post(`/api/v1/workspaces/${ws.id}/comments`, { page_path: "history/after.md", body: "Moved fine" });
    await owner.client.post(`/api/v1/content/${ws.slug}/history/unrelated.md`, { title: "Other", body: "y" });
    const r = await viewer.client.get(`/api/v1/workspaces/${ws.id}/page-activity?page=history/after`);
    expect(r.status).toBe(200);
    expect(r.body.items.map((a: any) => a.action)).toEqual(["comment_added", "page_moved", "page_created"]);
    expect(r.body.items.every((a: any) => a.page_id === c.body.page_id)).toBe(true);
    const missing = await viewer.client.get(`/api/v1/workspaces/${ws.id}/page-activity`);
    expect(missing.status).toBe(400);
    expect(missing.body.details.field).toBe("page");
  });

  test("another organization's workspace is 404; no credentials 401; bad parameters 400", async () => {
    expect((await feed(stranger)).status).toBe(404);
    expect((await stranger.client.get(`/api/v1/workspaces/${ws.id}/page-activity?page=a.md`)).status).toBe(404);
    expect((await new Client(server.url).get(`/api/v1/workspaces/${ws.id}/activity`)).status).toBe(401);
    for (const [q, field] of [
      ["?limit=0", "limit"],
      ["?limit=500", "limit"],
      ["?cursor=AAAA", "cursor"],
      ["?action=DROP%20TABLE", "action"],
    ]) {
      const r = await feed(viewer, q);
      expect(r.status).toBe(400);
      expect(r.body.details.field).toBe(field);
    }
  });
});

describe("templates", () => {
  test("lists the built-in templates and serves each one's content", async () => {
    const list = await viewer.client.get("/api/v1/templates");
    expect(list.status).toBe(200);
    const ids = list.body.items.map((t: any) => t.id);
    expect(ids).toEqual(expect.arrayContaining(["how-to-guide", "api-reference", "tutorial", "architecture-decision-record", "runbook", "meeting-notes"]));
    expect(list.body.next_cursor).toBeNull();
    for (const item of list.body.items) {
      expect(Object.keys(item).sort()).toEqual(["description", "id", "name"]);
      expect(item.name.length).toBeGreaterThan(0);
      expect(item.description.length).toBeGreaterThan(0);
      const one = await viewer.client.get(`/api/v1/templates/${item.id}`);
      expect(one.status).toBe(200);
      expect(one.body).toMatchObject({ id: item.id, name: item.name, description: item.description });
      expect(one.body.content).toMatch(/^# /);
      // The template's own metadata block is not part of the page body it offers.
      expect(one.body.content).not.toContain("description:");
    }
  });

  test("unknown template 404; path tricks are not files; no credentials 401", async () => {
    for (const id of ["nope", "..%2F..%2Fpackage.json", "runbook.md"]) {
      const r = await viewer.client.get(`/api/v1/templates/${id}`);
      expect(r.status).toBe(404);
      expect(r.body.error).toBe("NOT_FOUND");
    }
    expect((await new Client(server.url).get("/api/v1/templates")).status).toBe(401);
  });
});
