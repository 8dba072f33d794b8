/**
 * `git_auto_commit` off: saves stay uncommitted in the work tree. A pull then commits only what
 * the remote brought (and the ids Quire adds to those files); the user's pending edits are never
 * committed by it, never pushed, never overwritten. Turning auto-commit back on commits them, as
 * one commit by Quire, and pushes it.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { TestServer } from "../helpers/server.ts";
import type { TestUser } from "../helpers/factories.ts";
import { git, IdeClone, type GitHttpRemote } from "../helpers/git-remote.ts";
import { remoteWorkspace, type RemoteWorkspace, settled, waitFor } from "./support.ts";

let server: TestServer;
let owner: TestUser;
let remote: GitHttpRemote;
let ide: IdeClone;
let ws: { id: string; slug: string };
let dir: string;
let fixture: RemoteWorkspace;
beforeAll(async () => {
  fixture = await remoteWorkspace("pending");
  ({ server, owner, remote, ide, ws, dir } = fixture);
});
afterAll(() => fixture.close());

const autoCommit = async (on: boolean) => expect((await owner.client.put(`/api/v1/workspaces/${ws.id}/admin/settings`, { git_auto_commit: on })).status).toBe(200);
const save = async (path: string, body: string) => {
  const read = await owner.client.get(`/api/v1/content/${ws.slug}/${path}`);
  const put = await owner.client.put(`/api/v1/content/${ws.slug}/${path}`, { body, lastKnownHash: read.body.content_hash });
  expect(put.status).toBe(200);
};
/** Files a commit of the remote touches. */
const filesOf = async (sha: string) => (await git(["show", "--name-only", "--format=", sha], { cwd: remote.bareDir })).trim().split("\n").filter(Boolean);
const onDisk = (path: string) => readFileSync(join(dir, path), "utf8");
/**
 * Paths `git status` reports in the work tree (uncommitted, staged or not), once the index has
 * caught up with commits made from bytes (docs/decisions/git-commits.md §1).
 */
const uncommitted = async () => {
  await waitFor(() => server.services.gitSync.repo(ws.id).indexLag === 0, 5000, "the index to catch up");
  await settled(server);
  return (await git(["status", "--porcelain"], { cwd: dir })).split("\n").filter(Boolean).map((l) => l.slice(3));
};
const ideCommit = async (path: string, text: (t: string | null) => string, message: string) => {
  await ide.pull();
  ide.writeFile(path, text(ide.readFile(path)));
  await ide.commit(message);
  await ide.push();
};

test("a pull commits only what it brought: the uncommitted edit stays in the work tree and never reaches the remote", async () => {
  await autoCommit(false);
  await save("index.md", "Edited in the browser, not committed.\n");
  await settled(server);
  // The IDE pushes an unrelated page without an id: the pull injects one and commits it.
  await ideCommit("notes.md", () => "# Notes\n\nFrom the IDE.\n", "Add notes");
  const sync = await owner.client.post(`/api/v1/workspaces/${ws.id}/sync`, {});
  expect(sync.status).toBe(200);
  expect(sync.body).toMatchObject({ status: "completed", changes: { added: 1, updated: 0, deleted: 0 } });
  await settled(server);

  expect(await remote.show("index.md")).not.toContain("Edited in the browser");
  expect(await remote.show("notes.md")).toMatch(/^---\nid: /);
  const [top] = await remote.log();
  expect(top!.subject).toBe("Add page ids via Quire");
  expect(await filesOf(top!.sha)).toEqual(["notes.md"]);
  // No commit anywhere in the remote's history holds the browser's edit.
  expect(await git(["log", "-p", "refs/heads/main"], { cwd: remote.bareDir })).not.toContain("Edited in the browser");

  // Still there, still uncommitted: an unstaged change and nothing else.
  expect(onDisk("index.md")).toContain("Edited in the browser, not committed.");
  expect(await uncommitted()).toEqual(["index.md"]);
  expect((await git(["diff", "HEAD", "--", "index.md"], { cwd: dir }))).toContain("+Edited in the browser, not committed.");
  expect((await git(["rev-parse", "HEAD"], { cwd: dir })).trim()).toBe(top!.sha);
});

test("a pulled change to a page with an uncommitted edit is a conflict: the edit stays, the remote keeps its version", async () => {
  await ideCommit("index.md", (t) => t!.replace("Welcome to the remote.", "Welcome, from the IDE."), "IDE edit of index.md");
  const ideHead = await remote.head();
  const sync = await owner.client.post(`/api/v1/workspaces/${ws.id}/sync`, {});
  // docs/interfaces.md §3: the manual sync answers 200 with the sync result; the outcome is in the body.
  expect(sync.status).toBe(200);
  expect(sync.body).toMatchObject({ status: "conflict", conflicts: 1 });
  await settled(server);

  expect(await remote.head()).toBe(ideHead); // nothing of ours was committed or pushed
  expect(onDisk("index.md")).toContain("Edited in the browser, not committed.");
  const c = (await owner.client.get(`/api/v1/workspaces/${ws.id}/conflicts`)).body.conflicts[0];
  expect(c.path).toBe("index.md");
  const theirs = await owner.client.get(`/api/v1/conflicts/${c.page_id}/${c.timestamp}/theirs`);
  expect(theirs.text).toContain("Welcome, from the IDE.");
  const ours = await owner.client.get(`/api/v1/conflicts/${c.page_id}/${c.timestamp}/ours`);
  expect(ours.text).toContain("Edited in the browser, not committed.");
  // The work tree's HEAD is the remote's; the edit is the only change git sees.
  expect((await git(["rev-parse", "HEAD"], { cwd: dir })).trim()).toBe(ideHead!);
  expect(await uncommitted()).toEqual(["index.md"]);
});

test("turning auto-commit back on commits the pending edits as one commit by Quire and pushes it", async () => {
  await save("guide/getting-started.md", "Second pending edit.\n");
  await settled(server);
  expect(await remote.show("guide/getting-started.md")).not.toContain("Second pending edit.");
  await autoCommit(true);
  await settled(server);
  const [top] = await remote.log();
  expect(top).toMatchObject({ subject: "Commit 2 pending edits (auto-commit turned on) via Quire", author_name: "Quire" });
  expect((await filesOf(top!.sha)).sort()).toEqual(["guide/getting-started.md", "index.md"]);
  expect(await remote.show("guide/getting-started.md")).toContain("Second pending edit.");
  expect(await remote.show("index.md")).toContain("Edited in the browser, not committed.");
  expect(await uncommitted()).toEqual([]);
});
