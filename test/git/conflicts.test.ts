/**
 * The same page edited in the browser and pushed from an IDE: Quire keeps the local file, stores
 * ours/theirs/base, reports `conflict`, lists and serves both versions, and resolves each way.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import type { IdeClone, GitHttpRemote } from "../helpers/git-remote.ts";
import { memberWithRole } from "../access/support.ts";
import { remoteWorkspace, type RemoteWorkspace, recordEvents, row, settled } from "./support.ts";

let server: TestServer;
let owner: TestUser;
let remote: GitHttpRemote;
let ide: IdeClone;
let ws: { id: string; slug: string };
let fixture: RemoteWorkspace;
beforeAll(async () => {
  fixture = await remoteWorkspace("conflicted");
  ({ server, owner, remote, ide, ws } = fixture);
});
afterAll(() => fixture.close());

/** The IDE pushes its edit of `path` first; then the browser saves its own: the push is rejected, the pull finds the conflict. */
async function editBothSides(path: string, ideText: (t: string) => string, webBody: string) {
  await ide.pull();
  ide.writeFile(path, ideText(ide.readFile(path)!));
  await ide.commit(`IDE edit of ${path}`);
  await ide.push();
  const read = await owner.client.get(`/api/v1/content/${ws.slug}/${path}`);
  const put = await owner.client.put(`/api/v1/content/${ws.slug}/${path}`, { body: webBody, lastKnownHash: read.body.content_hash });
  expect(put.status).toBe(200);
  await settled(server);
  return put.body;
}

async function onlyConflict() {
  const list = await owner.client.get(`/api/v1/workspaces/${ws.id}/conflicts`);
  expect(list.status).toBe(200);
  expect(list.body.conflicts).toHaveLength(1);
  return list.body.conflicts[0];
}

describe("conflicts", () => {
  test("detected, stored, listed and downloadable; kept_remote writes theirs as the caller and pushes it", async () => {
    const events = recordEvents(server, ws.id);
    const local = await editBothSides("index.md", (t) => t.replace("Welcome to the remote.", "Welcome, from the IDE."), "Welcome, from the browser.\n");
    expect(row(server, ws.id).sync_status).toBe("conflict");
    expect(events.find((e) => e.type === "conflict-detected")?.payload).toEqual({ workspace_id: ws.id, path: "index.md" });
    expect(events.some((e) => e.type === "sync-status" && e.payload.status === "conflict")).toBe(true);

    const list = await owner.client.get(`/api/v1/workspaces/${ws.id}/conflicts`);
    expect(list.body).toMatchObject({ workspace_id: ws.id, sync_status: "conflict" });
    const c = await onlyConflict();
    expect(c).toMatchObject({ path: "index.md", page_id: local.page_id, ours_hash: local.content_hash });
    expect(c.timestamp).toMatch(/^\d{8}T\d{6}Z$/);
    const dir = join(server.dataDir, "conflicts", c.page_id, c.timestamp);
    for (const f of ["ours.md", "theirs.md", "base.md"]) expect(existsSync(join(dir, f))).toBe(true);
    expect(readFileSync(join(dir, "base.md"), "utf8")).toContain("Welcome to the remote.");

    // The local file is kept, in the work tree and on the remote (the merge was pushed).
    expect((await owner.client.get(`/api/v1/content/${ws.slug}/index.md`)).body.content).toBe("Welcome, from the browser.\n");
    expect(await remote.show("index.md")).toContain("Welcome, from the browser.");

    const ours = await owner.client.get(`/api/v1/conflicts/${c.page_id}/${c.timestamp}/ours`);
    expect(ours.status).toBe(200);
    expect(ours.headers.get("content-type")).toStartWith("text/markdown");
    expect(ours.text).toContain("Welcome, from the browser.");
    const theirs = await owner.client.get(`/api/v1/conflicts/${c.page_id}/${c.timestamp}/theirs`);
    expect(theirs.text).toContain("Welcome, from the IDE.");
    expect((await owner.client.get(`/api/v1/conflicts/${c.page_id}/${c.timestamp}/base`)).status).toBe(404);

    const inspect = await owner.client.get(`/api/v1/workspaces/${ws.id}/sync/conflicts/${c.id}`);
    expect(inspect.status).toBe(200);
    expect(inspect.body).toMatchObject({ id: `${c.page_id}-${c.timestamp}`, path: "index.md", theirs_deleted: false });
    expect(inspect.body.theirs).toContain("Welcome, from the IDE.");

    const resolved = await owner.client.post(`/api/v1/workspaces/${ws.id}/sync/conflicts/${c.id}/resolve`, { resolution: "kept_remote" });
    expect(resolved.status).toBe(200);
    expect(resolved.body).toMatchObject({ resolution: "kept_remote", path: "index.md", page_id: c.page_id, sync_status: "synced" });
    expect(existsSync(dir)).toBe(false);
    const page = await owner.client.get(`/api/v1/content/${ws.slug}/index.md`);
    expect(page.body.content).toContain("Welcome, from the IDE.");
    expect(page.body.page_id).toBe(c.page_id);
    await settled(server);
    const [top] = await remote.log();
    expect(top).toMatchObject({ subject: "Update index.md via web editor (conflict resolved)", author_name: "Grace Hopper", author_email: "grace@example.test" });
    expect(await remote.show("index.md")).toContain("Welcome, from the IDE.");
    expect(row(server, ws.id).sync_status).toBe("synced");
  });

  test("kept_local through the artifacts resolve: the local file stays, artifacts go", async () => {
    await editBothSides("guide/getting-started.md", (t) => t.replace("First steps.", "IDE steps."), "Browser steps.\n");
    const c = await onlyConflict();
    const r = await owner.client.post(`/api/v1/conflicts/${c.page_id}/${c.timestamp}/resolve`, {});
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ message: expect.stringContaining("guide/getting-started.md"), page_id: c.page_id });
    expect((await owner.client.get(`/api/v1/workspaces/${ws.id}/conflicts`)).body).toMatchObject({ sync_status: "synced", conflicts: [] });
    expect((await owner.client.get(`/api/v1/content/${ws.slug}/guide/getting-started.md`)).body.content).toBe("Browser steps.\n");
    expect(await remote.show("guide/getting-started.md")).toContain("Browser steps.");
    expect((await owner.client.get(`/api/v1/conflicts/${c.page_id}/${c.timestamp}/ours`)).status).toBe(404);
  });

  test("custom content is written, committed as the caller and pushed; bad input and other readers are refused", async () => {
    await editBothSides("guide/getting-started.md", (t) => t.replace("Browser steps.", "IDE again."), "Browser again.\n");
    const c = await onlyConflict();
    const url = `/api/v1/workspaces/${ws.id}/sync/conflicts/${c.id}/resolve`;
    expect((await owner.client.post(url, { resolution: "custom" })).body.details.field).toBe("content");
    expect((await owner.client.post(url, { resolution: "merge" })).status).toBe(400);
    expect((await owner.client.post(`/api/v1/workspaces/${ws.id}/sync/conflicts/nope-20260101T000000Z/resolve`, { resolution: "kept_local" })).status).toBe(404);
    expect((await owner.client.get(`/api/v1/conflicts/..%2F..%2Fetc/${c.timestamp}/ours`)).status).toBe(404);

    const viewer = await memberWithRole(server, owner, ws.id, "viewer");
    expect((await viewer.client.get(`/api/v1/workspaces/${ws.id}/conflicts`)).status).toBe(200);
    expect((await viewer.client.post(url, { resolution: "kept_local" })).status).toBe(403);
    expect((await viewer.client.post(`/api/v1/workspaces/${ws.id}/sync`, {})).status).toBe(403);
    const stranger = await registerUser(server.url);
    expect((await stranger.client.get(`/api/v1/workspaces/${ws.id}/conflicts`)).status).toBe(404);
    expect((await stranger.client.get(`/api/v1/conflicts/${c.page_id}/${c.timestamp}/theirs`)).status).toBe(404);

    const content = "---\ntitle: Getting started\n---\n\nBoth, merged by hand.\n";
    const r = await owner.client.post(url, { resolution: "custom", content });
    expect(r.status).toBe(200);
    const page = await owner.client.get(`/api/v1/content/${ws.slug}/guide/getting-started.md`);
    expect(page.body.content).toBe("Both, merged by hand.\n");
    expect(page.body.page_id).toBe(c.page_id); // the id is kept even though the text did not carry it
    await settled(server);
    expect(await remote.show("guide/getting-started.md")).toContain("Both, merged by hand.");
    expect(await remote.show("guide/getting-started.md")).toContain(`id: ${c.page_id}`);
    expect((await remote.log())[0]!.author_email).toBe("grace@example.test");
    expect(row(server, ws.id).sync_status).toBe("synced");
  });
});
