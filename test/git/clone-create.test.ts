/**
 * Creating a workspace from a remote is all-or-nothing: the clone runs before the row exists (in a
 * staging folder), so a workspace being cloned is not listed and its slug answers CONFLICT to a
 * second create; a failed clone leaves no row and no folder; a start-up after a crash mid-create
 * removes what was left.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startTestServer, tempDir, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { startGitHttpRemote, type GitHttpRemote } from "../helpers/git-remote.ts";
import { ulid } from "../../src/core/ids.ts";
import { GIT_ENV, createFromRemote, settled } from "./support.ts";

let server: TestServer;
let owner: TestUser;
let remote: GitHttpRemote;
/** A slow way to the remote: every request waits before it is forwarded (a clone of ~1 s). */
let slow: ReturnType<typeof Bun.serve>;
const dataDir = tempDir();
beforeAll(async () => {
  server = await startTestServer(GIT_ENV, { dataDir, keepDir: true });
  owner = await registerUser(server.url, { name: "Grace Hopper", email: "grace@example.test" });
  remote = await startGitHttpRemote({ branch: "main" });
  const target = new URL(remote.url);
  slow = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      await Bun.sleep(300);
      const url = new URL(req.url);
      url.host = target.host;
      const body = req.method === "GET" || req.method === "HEAD" ? undefined : await req.arrayBuffer();
      return fetch(url, { method: req.method, headers: req.headers, body });
    },
  });
});
afterAll(async () => {
  await server.close();
  slow.stop(true);
  await remote.close();
});

const rowsWithSlug = (slug: string) => server.services.db.query<{ id: string }, [string]>("SELECT id FROM workspaces WHERE slug = ?").all(slug);
/** Workspace folders (the staging folder aside). */
const folders = () => readdirSync(join(dataDir, "workspaces")).filter((n) => n !== ".cloning").sort();

test("while the clone runs the workspace is not listed and a second create with its slug is a CONFLICT", async () => {
  const before = folders();
  const first = createFromRemote(owner, "docs", `http://127.0.0.1:${slow.port}/remote.git`);
  await Bun.sleep(150);
  const list = await owner.client.get("/api/v1/workspaces");
  expect(list.status).toBe(200);
  expect(list.body.items.map((w: { slug: string }) => w.slug)).not.toContain("docs");
  expect(rowsWithSlug("docs")).toEqual([]);
  const second = await createFromRemote(owner, "docs", remote.url);
  expect(second.status).toBe(409);
  expect(second.body).toMatchObject({ error: "CONFLICT", details: { field: "slug" } });

  const created = await first;
  expect(created.status).toBe(201);
  await settled(server);
  expect(rowsWithSlug("docs").map((r) => r.id)).toEqual([created.body.id]);
  const dir = join(dataDir, "workspaces", created.body.id);
  expect(existsSync(join(dir, ".git", "HEAD"))).toBe(true);
  expect(existsSync(join(dir, ".git", "quire-create-pending"))).toBe(false);
  expect(existsSync(join(dataDir, "workspaces", ".cloning"))).toBe(false);
  expect(folders()).toEqual([...before, created.body.id].sort());
  expect((await owner.client.get(`/api/v1/content/docs/index.md`)).status).toBe(200);
  expect(server.services.watcher?.isWatching(created.body.id) ?? true).toBe(true);
});

test("a failed clone leaves no row, no folder and nothing staged", async () => {
  const before = folders();
  slow.stop(true);
  const failed = await createFromRemote(owner, "broken", `http://127.0.0.1:${slow.port}/remote.git`);
  expect(failed.status).toBe(400);
  expect(failed.body.details).toMatchObject({ field: "git_remote" });
  expect(rowsWithSlug("broken")).toEqual([]);
  expect(folders()).toEqual(before);
  expect(existsSync(join(dataDir, "workspaces", ".cloning"))).toBe(false);
  // The slug is free again.
  const again = await createFromRemote(owner, "broken", remote.url);
  expect(again.status).toBe(201);
});

test("a start after a crash mid-create removes the staging folder and any folder whose row was never committed", async () => {
  await settled(server);
  const kept = rowsWithSlug("broken")[0]!.id;
  await server.stop(1000);
  const root = join(dataDir, "workspaces");
  // What a crash leaves: a clone still staging, a clone moved into place whose row was rolled
  // back, and a committed workspace whose marker was not removed yet.
  mkdirSync(join(root, ".cloning", "half", ".git"), { recursive: true });
  writeFileSync(join(root, ".cloning", "half", "index.md"), "partial");
  const orphan = ulid();
  mkdirSync(join(root, orphan, ".git"), { recursive: true });
  writeFileSync(join(root, orphan, ".git", "quire-create-pending"), "");
  writeFileSync(join(root, kept, ".git", "quire-create-pending"), "");

  server = await startTestServer(GIT_ENV, { dataDir, keepDir: false });
  expect(existsSync(join(root, ".cloning"))).toBe(false);
  expect(existsSync(join(root, orphan))).toBe(false);
  expect(existsSync(join(root, kept, ".git", "HEAD"))).toBe(true);
  expect(existsSync(join(root, kept, ".git", "quire-create-pending"))).toBe(false);
  expect(server.logs.some((l) => l.includes("whose creation did not finish") && l.includes(orphan))).toBe(true);
});
