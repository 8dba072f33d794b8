/**
 * Every conflict resolution ends with the resolved state committed as the resolving user and
 * pushed when auto-commit is on — `kept_local` included, through either resolve endpoint. With
 * auto-commit off a resolution is an uncommitted edit like any save: nothing is committed or
 * pushed until auto-commit is turned back on.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { TestServer } from "../helpers/server.ts";
import type { TestUser } from "../helpers/factories.ts";
import type { IdeClone, GitHttpRemote } from "../helpers/git-remote.ts";
import { remoteWorkspace, type RemoteWorkspace, settled } from "./support.ts";

let server: TestServer;
let owner: TestUser;
let remote: GitHttpRemote;
let ide: IdeClone;
let ws: { id: string; slug: string };
let fixture: RemoteWorkspace;
beforeAll(async () => {
  fixture = await remoteWorkspace("resolved");
  ({ server, owner, remote, ide, ws } = fixture);
});
afterAll(() => fixture.close());

const autoCommit = async (on: boolean) => expect((await owner.client.put(`/api/v1/workspaces/${ws.id}/admin/settings`, { git_auto_commit: on })).status).toBe(200);

/** With auto-commit off: the browser's edit stays uncommitted, the IDE's edit of the same page comes in, a conflict. */
async function conflictOn(path: string, web: string, fromIde: string) {
  await autoCommit(false);
  const read = await owner.client.get(`/api/v1/content/${ws.slug}/${path}`);
  expect((await owner.client.put(`/api/v1/content/${ws.slug}/${path}`, { body: web, lastKnownHash: read.body.content_hash })).status).toBe(200);
  await ide.pull();
  ide.writeFile(path, ide.readFile(path)!.replace(/\n---\n[\s\S]*$/, `\n---\n${fromIde}`));
  await ide.commit(`IDE edit of ${path}`);
  await ide.push();
  expect((await server.services.gitSync.trigger(ws.id, { reason: "manual" })).status).toBe("conflict");
  const c = (await owner.client.get(`/api/v1/workspaces/${ws.id}/conflicts`)).body.conflicts.find((x: { path: string }) => x.path === path);
  return c as { page_id: string; timestamp: string };
}

test("auto-commit off: a custom resolution is written but neither committed nor pushed", async () => {
  const c = await conflictOn("index.md", "Browser text.\n", "IDE text.\n");
  const before = await remote.head();
  const r = await owner.client.post(`/api/v1/workspaces/${ws.id}/sync/conflicts/${c.page_id}-${c.timestamp}/resolve`, { resolution: "custom", content: "Merged by hand.\n" });
  expect(r.status).toBe(200);
  await settled(server);
  expect(readFileSync(join(server.services.ledger.dir(ws.id).root, "index.md"), "utf8")).toContain("Merged by hand.");
  expect(await remote.head()).toBe(before);
  expect(await remote.show("index.md")).toContain("IDE text.");
  // Turned back on: the resolution goes out with the pending edits.
  await autoCommit(true);
  await settled(server);
  expect(await remote.show("index.md")).toContain("Merged by hand.");
});

test("kept_local through the artifacts endpoint commits the local version as the caller and pushes it", async () => {
  const c = await conflictOn("guide/getting-started.md", "Browser guide.\n", "IDE guide.\n");
  // Auto-commit written straight to the database (a restore, another process): the pending edit
  // is still uncommitted when the resolution comes, so only the resolution can commit it.
  server.services.db.query("UPDATE workspaces SET git_auto_commit = 1 WHERE id = ?").run(ws.id);
  expect(await remote.show("guide/getting-started.md")).toContain("IDE guide.");
  const r = await owner.client.post(`/api/v1/conflicts/${c.page_id}/${c.timestamp}/resolve`, {});
  expect(r.status).toBe(200);
  expect(r.body).toEqual({ message: "Conflict on guide/getting-started.md resolved; the local version is kept", page_id: c.page_id });
  await settled(server);
  expect(await remote.show("guide/getting-started.md")).toContain("Browser guide.");
  const [top] = await remote.log();
  expect(top).toMatchObject({ subject: "Keep the local version of guide/getting-started.md via web editor (conflict resolved)", author_name: "Grace Hopper", author_email: "grace@example.test" });
  expect((await owner.client.get(`/api/v1/workspaces/${ws.id}/conflicts`)).body.conflicts).toEqual([]);
});
