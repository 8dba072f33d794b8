/**
 * Git sync end to end against a real smart-HTTP remote on loopback and an IDE clone driven by
 * the git command: clone on create, web edits committed as their author and pushed, IDE pushes
 * pulled through trigger/webhook-style calls, bulk sync, renames and deletions.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { IdeClone, startGitHttpRemote, type GitHttpRemote } from "../helpers/git-remote.ts";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { GIT_ENV, createFromRemote, recordEvents, row, settled, waitFor } from "./support.ts";

let server: TestServer;
let owner: TestUser;
beforeAll(async () => {
  server = await startTestServer(GIT_ENV);
  owner = await registerUser(server.url, { name: "Ada Lovelace", email: "ada@example.test" });
});
afterAll(() => server.close());

describe("clone, outbound and inbound", () => {
  let remote: GitHttpRemote;
  let ws: { id: string; slug: string };
  let ide: IdeClone;
  beforeAll(async () => {
    remote = await startGitHttpRemote({ branch: "main" });
    const r = await createFromRemote(owner, "synced", remote.url);
    expect(r.status).toBe(201);
    ws = r.body;
    await settled(server);
    ide = await IdeClone.clone(remote.url);
  });
  afterAll(async () => {
    await ide?.close();
    await remote?.close();
  });

  test("create clones the remote: its pages are readable, ids are committed back, status synced", async () => {
    const page = await owner.client.get(`/api/v1/content/${ws.slug}/guide/getting-started.md`);
    expect(page.status).toBe(200);
    expect(page.body.content).toContain("First steps.");
    expect(row(server, ws.id).sync_status).toBe("synced");
    // The ids Quire gave the pages were committed by Quire and pushed.
    const [top] = await remote.log();
    expect(top).toMatchObject({ subject: "Add page ids via Quire", author_name: "Quire", author_email: "quire@localhost" });
    const home = await owner.client.get(`/api/v1/content/${ws.slug}/index.md`);
    expect(await remote.show("index.md")).toStartWith(`---\nid: ${home.body.page_id}\ntitle: Home\n`);
    const get = await owner.client.get(`/api/v1/workspaces/${ws.id}`);
    expect(get.body).toMatchObject({ git_remote: remote.url, git_branch: "main", sync_status: "synced" });
  });

  test("a web edit is committed with the user as author and reaches the remote", async () => {
    const read = await owner.client.get(`/api/v1/content/${ws.slug}/index.md`);
    const put = await owner.client.put(`/api/v1/content/${ws.slug}/index.md`, { body: "# Home\n\nEdited in the browser.\n", lastKnownHash: read.body.content_hash });
    expect(put.status).toBe(200);
    await settled(server);
    const [top] = await remote.log();
    expect(top).toMatchObject({ subject: "Update index.md via web editor", author_name: "Ada Lovelace", author_email: "ada@example.test" });
    expect(await remote.show("index.md")).toContain("Edited in the browser.");
    expect(row(server, ws.id).sync_status).toBe("synced");
    // Created and deleted pages too, each its own commit.
    expect((await owner.client.post(`/api/v1/content/${ws.slug}/notes/new`, { title: "New", body: "Fresh" })).status).toBe(201);
    expect((await owner.client.delete(`/api/v1/content/${ws.slug}/notes/new.md`)).status).toBe(204);
    await settled(server);
    const subjects = (await remote.log()).map((c) => c.subject);
    expect(subjects.slice(0, 2)).toEqual(["Delete notes/new.md via web editor", "Create notes/new.md via web editor"]);
    expect(await remote.show("notes/new.md")).toBeNull();
  });

  test("an IDE push, then trigger: the page is visible through the API and an event says so", async () => {
    await ide.pull();
    ide.writeFile("guide/getting-started.md", ide.readFile("guide/getting-started.md")!.replace("First steps.", "First steps, edited in an IDE."));
    await ide.commit("Edit guide");
    await ide.push();
    const events = recordEvents(server, ws.id);
    const result = await server.services.gitSync.trigger(ws.id, { reason: "webhook", branch: "main" });
    expect(result).toMatchObject({ status: "completed", changes: { added: 0, updated: 1, deleted: 0 } });
    const page = await owner.client.get(`/api/v1/content/${ws.slug}/guide/getting-started.md`);
    expect(page.body.content).toContain("edited in an IDE");
    expect(events.find((e) => e.type === "page-updated")?.payload).toMatchObject({ workspace_id: ws.id, path: "guide/getting-started.md" });
    expect(events.some((e) => e.type === "bulk-sync")).toBe(false);
    const activity = server.services.db
      .query<any, [string]>("SELECT details FROM activity WHERE workspace_id = ? AND action = 'sync_completed' ORDER BY id DESC")
      .get(ws.id);
    expect(JSON.parse(activity.details)).toMatchObject({ added: 0, updated: 1, deleted: 0, reason: "webhook" });
    // A push to another branch is acknowledged and ignored.
    expect((await server.services.gitSync.trigger(ws.id, { reason: "webhook", branch: "feature" })).status).toBe("ignored");
  });

  test("a 40-file push arrives as one bulk-sync", async () => {
    await ide.pull();
    for (let i = 0; i < 40; i++) ide.writeFile(`bulk/page-${String(i).padStart(2, "0")}.md`, `---\ntitle: Bulk ${i}\n---\n\nPage ${i}\n`);
    await ide.commit("Forty pages");
    await ide.push();
    const events = recordEvents(server, ws.id);
    const sync = await owner.client.post(`/api/v1/workspaces/${ws.id}/sync`, {});
    expect(sync.status).toBe(200);
    expect(sync.body).toEqual({ status: "completed", changes: { added: 40, updated: 0, deleted: 0 }, conflicts: 0 });
    const bulk = events.filter((e) => e.type === "bulk-sync");
    expect(bulk).toHaveLength(1);
    expect(bulk[0]!.payload.changed_count).toBe(40);
    expect(bulk[0]!.payload.paths).toContain("bulk/page-07.md");
    expect(events.filter((e) => e.type.startsWith("page-"))).toHaveLength(0);
    const tree = server.services.ledger.records.liveIn(ws.id).filter((r) => r.path.startsWith("bulk/"));
    expect(tree).toHaveLength(40);
    // The ids Quire injected went back to the remote.
    await settled(server);
    expect(await remote.show("bulk/page-07.md")).toMatch(/^---\nid: [0-9A-Z]{26}\ntitle: Bulk 7/);
  });

  test("a rename on the remote keeps the page id; a deletion removes the page", async () => {
    await ide.pull();
    const before = server.services.ledger.records.live(ws.id, "bulk/page-01.md")!;
    ide.mv("bulk/page-01.md", "moved/renamed.md");
    ide.rm("bulk/page-02.md");
    await ide.commit("Rename and delete");
    await ide.push();
    const events = recordEvents(server, ws.id);
    const result = await server.services.gitSync.trigger(ws.id, { reason: "manual" });
    expect(result.changes).toEqual({ added: 0, updated: 1, deleted: 1 });
    const after = server.services.ledger.records.live(ws.id, "moved/renamed.md");
    expect(after?.id).toBe(before.id);
    expect(server.services.ledger.records.live(ws.id, "bulk/page-02.md")).toBeNull();
    expect((await owner.client.get(`/api/v1/content/${ws.slug}/bulk/page-02.md`)).status).toBe(404);
    const bulk = events.find((e) => e.type === "bulk-sync");
    expect((bulk?.payload.paths as string[]).sort()).toEqual(["bulk/page-01.md", "bulk/page-02.md", "moved/renamed.md"]);
  });

  test("quick saves share a push; the remote moving on meanwhile is pulled, never forced", async () => {
    await ide.pull();
    ide.writeFile("from-ide.md", "---\ntitle: From IDE\n---\n\nIDE\n");
    await ide.commit("IDE page");
    await ide.push();
    const before = remote.requests.filter((r) => r.includes("git-receive-pack") && r.startsWith("POST")).length;
    for (let i = 0; i < 3; i++) {
      const r = await owner.client.post(`/api/v1/content/${ws.slug}/quick-${i}`, { title: `Quick ${i}`, body: "q" });
      expect(r.status).toBe(201);
    }
    await settled(server);
    const pushes = remote.requests.filter((r) => r.includes("git-receive-pack") && r.startsWith("POST")).length - before;
    expect(pushes).toBeLessThanOrEqual(2); // one rejected, one after the pull
    const log = await remote.log();
    expect(log.map((c) => c.subject)).toContain("IDE page");
    expect(log.map((c) => c.subject)).toContain("Create quick-2.md via web editor");
    expect(await remote.show("from-ide.md")).toContain("From IDE");
    expect((await owner.client.get(`/api/v1/content/${ws.slug}/from-ide.md`)).status).toBe(200);
    expect(row(server, ws.id).sync_status).toBe("synced");
  });
  test(".quire/workspace.yaml changed on both sides on different lines is merged, not a conflict", async () => {
    await ide.pull();
    ide.writeFile(".quire/workspace.yaml", "name: Docs\ntheme: default\nnav: tree\n");
    await ide.commit("Add the manifest");
    await ide.push();
    await server.services.gitSync.trigger(ws.id, { reason: "manual" });
    const manifest = join(server.dataDir, "workspaces", ws.id, ".quire/workspace.yaml");
    expect(readFileSync(manifest, "utf8")).toBe("name: Docs\ntheme: default\nnav: tree\n");
    // Quire changes the first line locally (committed like any write of its own) ...
    await server.services.ledger.exclusive(ws.id, async () => {
      writeFileSync(manifest, "name: Handbook\ntheme: default\nnav: tree\n");
      await server.services.gitSync.repo(ws.id).commitPaths([".quire/workspace.yaml"], "Rename the workspace via Quire", { name: "Quire", email: "quire@localhost" });
    });
    // ... while the IDE changes the last one.
    ide.writeFile(".quire/workspace.yaml", "name: Docs\ntheme: default\nnav: file\n");
    await ide.commit("Navigation from a file");
    await ide.push();
    const result = await server.services.gitSync.trigger(ws.id, { reason: "manual" });
    expect(result.status).toBe("completed");
    expect(readFileSync(manifest, "utf8")).toBe("name: Handbook\ntheme: default\nnav: file\n");
    expect(await remote.show(".quire/workspace.yaml")).toBe("name: Handbook\ntheme: default\nnav: file\n");
    expect((await owner.client.get(`/api/v1/workspaces/${ws.id}/conflicts`)).body.conflicts).toEqual([]);
  });
});

describe("create failures leave nothing behind", () => {
  test("an unreachable remote: 400 naming git_remote, no row, no folder", async () => {
    const count = () => server.services.db.query<any, []>("SELECT COUNT(*) AS n FROM workspaces").get().n;
    const before = count();
    const r = await createFromRemote(owner, "nowhere", "http://127.0.0.1:9/none.git");
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("VALIDATION_ERROR");
    expect(r.body.details).toMatchObject({ field: "git_remote", reason: "unreachable" });
    expect(r.body.message).toContain("could not clone");
    expect(count()).toBe(before);
    expect(server.services.workspaces.bySlug("nowhere")).toBeNull();
    const folders = () => readdirSync(join(server.dataDir, "workspaces")).sort();
    const known = server.services.db.query<any, []>("SELECT id FROM workspaces ORDER BY id").all().map((w) => w.id);
    await Bun.sleep(600); // past the file watcher's debounce: nothing brings the folder back
    expect(folders()).toEqual(known);
    // The slug is free again.
    const again = await owner.client.post("/api/v1/workspaces", { name: "Now here", slug: "nowhere" });
    expect(again.status).toBe(201);
  });

  test("a missing branch and a name that does not resolve are refused the same way", async () => {
    const remote = await startGitHttpRemote({ branch: "main" });
    try {
      const r = await createFromRemote(owner, "nobranch", remote.url, "release");
      expect(r.status).toBe(400);
      expect(r.body.details).toMatchObject({ field: "git_remote", reason: "branch_not_found" });
    } finally {
      await remote.close();
    }
    const dns = await createFromRemote(owner, "nodns", "https://git.invalid/acme/docs.git");
    expect(dns.status).toBe(400);
    expect(dns.body.details.field).toBe("git_remote");
    expect(server.services.workspaces.bySlug("nodns")).toBeNull();
  });
});
