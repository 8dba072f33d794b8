/**
 * `quire init` attaches its workspace to the server-level default organization; the instance's
 * first user owns that organization (docs/decisions/default-organization.md). Driven through the
 * real CLI (`init`, `serve`) and real HTTP.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { tempDir } from "../helpers/server.ts";
import { Client } from "../helpers/client.ts";
import { registerUser } from "../helpers/factories.ts";
import { git } from "../helpers/git-remote.ts";
import { runCli, startServe, type ServeProcess } from "../cli/spawn.ts";

const dirs: string[] = [];
const serving: ServeProcess[] = [];
afterAll(async () => {
  for (const s of serving) {
    s.proc.kill("SIGTERM");
    await s.exited;
  }
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A folder of Markdown under git, the way a team's docs repository looks. */
async function docsFolder(): Promise<string> {
  const dir = tempDir("quire-docs-");
  dirs.push(dir);
  mkdirSync(join(dir, "guide"));
  writeFileSync(join(dir, "index.md"), "---\ntitle: Handbook\n---\nWelcome.\n");
  writeFileSync(join(dir, "guide", "setup.md"), "---\ntitle: Setup\n---\nInstall it.\n");
  await git(["init", "-q", "-b", "main"], { cwd: dir });
  await git(["add", "."], { cwd: dir });
  await git(["commit", "-q", "-m", "docs"], { cwd: dir });
  return dir;
}

async function init(dataDir: string, slug: string, gitUrl: string): Promise<string> {
  const r = await runCli(["init", "--workspace-name", "Handbook", "--slug", slug, "--git-url", gitUrl, "--data-dir", dataDir]);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  expect(r.stdout).toContain("Indexed 2 page(s)");
  return /id ([0-9A-Z]{26})/.exec(r.stdout)![1]!;
}

async function serve(dataDir: string): Promise<ServeProcess> {
  const s = await startServe(dataDir);
  serving.push(s);
  return s;
}

async function stop(s: ServeProcess): Promise<void> {
  s.proc.kill("SIGTERM");
  expect(await s.exited).toBe(0);
  serving.splice(serving.indexOf(s), 1);
}

function defaultOrg(dataDir: string) {
  const db = new Database(join(dataDir, "quire.db"), { readonly: true });
  try {
    const org = db.query<{ id: string; owner_id: string | null }, []>("SELECT id, owner_id FROM organizations WHERE is_default = 1").get()!;
    const members = db.query<{ user_id: string; role: string }, [string]>("SELECT user_id, role FROM org_members WHERE org_id = ?").all(org.id);
    return { ...org, members };
  } finally {
    db.close();
  }
}

/** The first user reads the init workspace: listed with the Super Admin role, tree and pages served. */
async function expectReachable(client: Client, slug: string, id: string) {
  const list = await client.get("/api/v1/workspaces");
  expect(list.status).toBe(200);
  const ws = list.body.items.find((w: { slug: string }) => w.slug === slug);
  expect(ws).toMatchObject({ id, slug, name: "Handbook", role: "super_admin", page_count: 2 });
  const tree = await client.get(`/api/v1/content/${slug}/tree`);
  expect(tree.status).toBe(200);
  expect(JSON.stringify(tree.body.items)).toContain("guide/setup.md");
  const page = await client.get(`/api/v1/content/${slug}/guide/setup.md`);
  expect(page.status).toBe(200);
  expect(page.body).toMatchObject({ path: "guide/setup.md", title: "Setup", content: "Install it.\n" });
  const home = await client.get(`/api/v1/content/${slug}/index.md`);
  expect(home.body.title).toBe("Handbook");
}

test("init then serve: the first user to register owns the default organization and reads the init workspace; the next user does not see it", async () => {
  const dataDir = tempDir();
  dirs.push(dataDir);
  const id = await init(dataDir, "handbook", await docsFolder());
  expect(defaultOrg(dataDir)).toMatchObject({ owner_id: null, members: [] });

  const s = await serve(dataDir);
  const first = await registerUser(s.base);
  await expectReachable(first.client, "handbook", id);
  const org = defaultOrg(dataDir);
  expect(org.owner_id).toBe(first.id);
  expect(org.members).toEqual([{ user_id: first.id, role: "super_admin" }]);
  // Registration still gives the first user a starter workspace, in that same organization.
  const starter = (await first.client.get("/api/v1/workspaces")).body.items.find((w: { slug: string }) => w.slug !== "handbook");
  expect(starter.org_id).toBe(org.id);

  // Everyone after the first registers into an organization of their own (docs/interfaces.md §3: nobody joins
  // another organization except by invitation or share link).
  const second = await registerUser(s.base);
  const theirs = await second.client.get("/api/v1/workspaces");
  expect(theirs.body.items.map((w: { slug: string }) => w.slug)).not.toContain("handbook");
  expect(theirs.body.items.every((w: { org_id: string }) => w.org_id !== org.id)).toBe(true);
  const denied = await second.client.get("/api/v1/content/handbook/tree");
  expect(denied.status).toBe(404);
  expect((await second.client.get(`/api/v1/content/handbook/guide/setup.md`)).status).toBe(404);
  expect(defaultOrg(dataDir).members).toEqual([{ user_id: first.id, role: "super_admin" }]);
  await stop(s);
}, 30_000);

test("init on an instance that already has users: the earliest user owns the default organization and keeps their own as home", async () => {
  const dataDir = tempDir();
  dirs.push(dataDir);
  const before = await serve(dataDir);
  const first = await registerUser(before.base);
  const second = await registerUser(before.base);
  const ownOrg = (await first.client.get("/api/v1/workspaces")).body.items[0].org_id;
  await stop(before);

  const id = await init(dataDir, "later-docs", await docsFolder());
  const org = defaultOrg(dataDir);
  expect(org.owner_id).toBe(first.id);
  expect(org.members).toEqual([{ user_id: first.id, role: "super_admin" }]);

  const s = await serve(dataDir);
  const client = new Client(s.base);
  const login = await client.post("/api/auth/login", { email: first.email, password: first.password });
  expect(login.status).toBe(200);
  client.token = login.body.access_token;
  await expectReachable(client, "later-docs", id);
  // New workspaces still go to the user's own organization (their session's home).
  const created = await client.post("/api/v1/workspaces", { name: "Mine", slug: "mine-after-init" });
  expect(created.status).toBe(201);
  expect(created.body.org_id).toBe(ownOrg);

  const other = new Client(s.base);
  const otherLogin = await other.post("/api/auth/login", { email: second.email, password: second.password });
  other.token = otherLogin.body.access_token;
  expect((await other.get("/api/v1/content/later-docs/tree")).status).toBe(404);
  await stop(s);
}, 30_000);

test("a default organization left without an owner by an older init is given to the first user when someone signs in", async () => {
  const dataDir = tempDir();
  dirs.push(dataDir);
  const before = await serve(dataDir);
  const first = await registerUser(before.base);
  await stop(before);
  const id = await init(dataDir, "legacy-docs", await docsFolder());
  // What an older init left behind: the default organization without owner or members.
  const db = new Database(join(dataDir, "quire.db"));
  db.exec("DELETE FROM org_members WHERE org_id IN (SELECT id FROM organizations WHERE is_default = 1)");
  db.exec("UPDATE organizations SET owner_id = NULL WHERE is_default = 1");
  db.close();

  const s = await serve(dataDir);
  const client = new Client(s.base);
  const login = await client.post("/api/auth/login", { email: first.email, password: first.password });
  expect(login.status).toBe(200);
  client.token = login.body.access_token;
  await expectReachable(client, "legacy-docs", id);
  expect(defaultOrg(dataDir).owner_id).toBe(first.id);
  await stop(s);
}, 30_000);
