/**
 * A newer Quire opens an older Quire's data. The executable of the last commit before the newest
 * database migration (the previous schema) is built from git, creates a data directory the way a
 * user would — a workspace synced to a git remote, a user, a page, an API key, a published site, a
 * search in analytics — and stops; then the current code starts on it and everything is there:
 * records, files and settings, sign-in, the key, analytics, search, the site, and git pushes. A data
 * directory from a newer schema is refused with a clear error and left as it was.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from "node:fs";
import { join, relative } from "node:path";
import { SCHEMA_VERSION } from "../../src/db/migrations/index.ts";
import { runCli, startServe, REPO, type ServeProcess } from "../cli/spawn.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { createLocalBareRemote, type BareRemote } from "../helpers/git-remote.ts";
import { tempDir } from "../helpers/server.ts";
import { GIT_ENV, waitFor } from "../git/support.ts";

const root = tempDir("quire-older-data-");
const dataDir = join(root, "data");
const oldBinary = join(root, "old", "quire");
let oldCommit = "";
let oldSchema = 0;
let bare: BareRemote;
let owner: TestUser;
let workspaceId = "";
let apiKey = "";
let before: { tables: Record<string, number>; files: string[]; page: unknown; settings: Record<string, unknown>; site: string; searches: unknown };
const timings: Record<string, number> = {};

const git = (...args: string[]) => Bun.spawnSync(["git", ...args], { cwd: REPO, stdout: "pipe", stderr: "pipe" }).stdout.toString().trim();

/** Row counts of every table (the FTS index's shadow tables aside), read-only. */
function tableCounts(): Record<string, number> {
  const db = new Database(join(dataDir, "quire.db"), { readonly: true });
  try {
    const names = db
      .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
      .all()
      .map((r) => r.name);
    return Object.fromEntries(names.map((n) => [n, db.query<{ n: number }, []>(`SELECT COUNT(*) AS n FROM "${n}"`).get()!.n]));
  } finally {
    db.close();
  }
}

/** The data directory's files, except what every start rewrites (lock, run state, logs, WAL). */
function dataFiles(): string[] {
  return readdirSync(dataDir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dataDir, join(e.parentPath, e.name)))
    .filter((f) => !/^(quire\.lock|runstate\.json|control\.token|logs\/|quire\.db-(wal|shm)|.*\.log$)/.test(f))
    .sort();
}

async function stop(s: ServeProcess): Promise<void> {
  s.proc.kill("SIGTERM");
  expect(await s.exited).toBe(0);
}

beforeAll(async () => {
  let t = performance.now();
  // The commit that added the newest migration file, and its parent: the code at the previous schema.
  const newest = git("log", "--diff-filter=A", "--format=%H", "-1", "--", "src/db/migrations/0*.ts");
  oldCommit = git("rev-parse", `${newest}^`);
  const src = join(root, "src");
  mkdirSync(src, { recursive: true });
  const archive = Bun.spawnSync(["sh", "-c", `git archive "${oldCommit}" | tar -x -C "${src}"`], { cwd: REPO, stderr: "pipe" });
  if (archive.exitCode !== 0) throw new Error(`git archive failed: ${archive.stderr}`);
  symlinkSync(join(REPO, "node_modules"), join(src, "node_modules"));
  const build = Bun.spawn(["bun", "build.ts", "--outfile", oldBinary], { cwd: src, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(build.stdout).text(), new Response(build.stderr).text(), build.exited]);
  if (code !== 0) throw new Error(`building ${oldCommit} failed:\n${out}${err}`);
  timings.build = performance.now() - t;

  // The older version creates its data: a workspace on a git remote, a user, a page, a key, a site.
  t = performance.now();
  bare = await createLocalBareRemote({ branch: "main" });
  const init = await runCli(["init", "--workspace-name", "Handbook", "--slug", "handbook", "--git-url", bare.url, "--branch", "main", "--data-dir", dataDir], {
    cmd: [oldBinary],
    env: GIT_ENV,
    cwd: root,
  });
  if (init.code !== 0) throw new Error(`old init failed: ${init.stderr}`);
  const old = await startServe(dataDir, { cmd: [oldBinary], env: GIT_ENV, cwd: root });
  try {
    owner = await registerUser(old.base, { name: "Ada Lovelace", email: "ada@example.test", password: "analytical engine notes" });
    const list = await owner.client.get("/api/v1/workspaces");
    workspaceId = list.body.items.find((w: { slug: string }) => w.slug === "handbook").id;
    const created = await owner.client.post("/api/v1/content/handbook/guides/upgrade-notes.md", {
      title: "Upgrade notes",
      body: "Written by the older Quire: the zebracorn survives upgrades.\n",
      tags: ["ops"],
      publish: true,
    });
    expect(created.status).toBe(201);
    const key = await owner.client.post("/api/v1/api-keys", { name: "ci", scopes: ["read"] });
    expect(key.status).toBe(201);
    apiKey = key.body.key;
    const settings = await owner.client.put(`/api/v1/workspaces/${workspaceId}/admin/settings`, { published: true, visibility: "public", theme: "forest" });
    expect(settings.status).toBe(200);
    await waitFor(async () => (await bare.log()).some((c) => c.subject.includes("upgrade-notes")), 20_000, "the older version's push");
    await waitFor(async () => (await owner.client.get(`/api/v1/workspaces/${workspaceId}/admin/settings`)).body.sync_status === "synced", 20_000, "synced");
    const site = await fetch(`${old.base}/p/handbook/guides/upgrade-notes`);
    expect(site.status).toBe(200);
    // A search, which analytics records (analytics.db).
    await waitFor(async () => {
      const r = await owner.client.get(`/api/v1/workspaces/${workspaceId}/search?q=zebracorn`);
      return JSON.stringify(r.body).includes("upgrade-notes") ? r : null;
    }, 10_000, "the older version's search");
    const searches = await waitFor(async () => {
      const r = await owner.client.get(`/api/v1/workspaces/${workspaceId}/analytics/searches`);
      return r.status === 200 && JSON.stringify(r.body).includes("zebracorn") ? r.body : null;
    }, 10_000, "the search in analytics");
    before = {
      searches,
      page: (await owner.client.get("/api/v1/content/handbook/guides/upgrade-notes.md")).body,
      settings: (await owner.client.get(`/api/v1/workspaces/${workspaceId}/admin/settings`)).body,
      site: await site.text(),
      tables: {},
      files: [],
    };
  } finally {
    await stop(old);
  }
  before.tables = tableCounts();
  before.files = dataFiles();
  // The older version wrote an older schema: starting the current code has a migration to run.
  const db = new Database(join(dataDir, "quire.db"), { readonly: true });
  oldSchema = db.query<{ v: number }, []>("SELECT MAX(version) AS v FROM schema_migrations").get()!.v;
  db.close();
  expect(oldSchema).toBeLessThan(SCHEMA_VERSION);
  timings.olderVersion = performance.now() - t;
}, 240_000);
afterAll(async () => {
  await bare?.close();
  rmSync(root, { recursive: true, force: true });
});

test("the current code opens the older version's data: every record, file and setting, sign-in, key, search, site and git push", async () => {
  const t = performance.now();
  const s = await startServe(dataDir, { env: GIT_ENV, cwd: root });
  try {
    // The schema was migrated forward to this version's.
    const db = new Database(join(dataDir, "quire.db"), { readonly: true });
    const schema = db.query<{ v: number }, []>("SELECT MAX(version) AS v FROM schema_migrations").get()!.v;
    db.close();
    expect(schema).toBe(SCHEMA_VERSION);

    // Every table still holds at least the rows it held; every file is still there.
    const after = tableCounts();
    for (const [table, n] of Object.entries(before.tables)) expect({ table, atLeast: (after[table] ?? -1) >= n }).toEqual({ table, atLeast: true });
    const files = new Set(dataFiles());
    for (const f of before.files) expect({ file: f, there: files.has(f) }).toEqual({ file: f, there: true });

    // The password hashed by the older version signs in; the key it issued still reads.
    const login = await fetch(`${s.base}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "ada@example.test", password: "analytical engine notes" }),
    });
    expect(login.status).toBe(200);
    const token = ((await login.json()) as { access_token: string }).access_token;
    const auth = { authorization: `Bearer ${token}` };
    // Analytics holds exactly what the older version recorded (before this test searches again).
    const searches = await (await fetch(`${s.base}/api/v1/workspaces/${workspaceId}/analytics/searches`, { headers: auth })).json();
    expect(searches).toEqual(before.searches);
    expect(JSON.stringify(searches)).toContain("zebracorn");
    expect(before.files).toContain("analytics.db");
    const byKey = await fetch(`${s.base}/api/v1/content/handbook/guides/upgrade-notes.md`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect(byKey.status).toBe(200);

    // The page and the settings are as the older version left them.
    const page = (await byKey.json()) as Record<string, unknown>;
    const { updated_by: _u1, problems: _p1, ...pageNow } = page;
    const { updated_by: _u2, problems: _p2, ...pageBefore } = before.page as Record<string, unknown>;
    expect(pageNow).toEqual(pageBefore);
    const settings = (await (await fetch(`${s.base}/api/v1/workspaces/${workspaceId}/admin/settings`, { headers: auth })).json()) as Record<string, unknown>;
    // Every setting; sync_status is the sync's state at this moment (a start syncs), not a setting.
    for (const key of Object.keys(before.settings).filter((k) => k !== "sync_status")) {
      expect({ key, value: settings[key] }).toEqual({ key, value: before.settings[key] });
    }

    // Search answers (the index was built by the older version or rebuilt by this one).
    const found = await waitFor(async () => {
      const r = await fetch(`${s.base}/api/v1/workspaces/${workspaceId}/search?q=zebracorn`, { headers: auth });
      const body = (await r.json()) as { results?: Array<{ path: string }>; items?: Array<{ path: string }> };
      const hits = body.results ?? body.items ?? [];
      return hits.some((h) => h.path === "guides/upgrade-notes.md") ? hits : null;
    }, 10_000, "search");
    expect(found.length).toBeGreaterThan(0);

    // The published site still serves the page, in the theme that was set.
    const site = await fetch(`${s.base}/p/handbook/guides/upgrade-notes`);
    expect(site.status).toBe(200);
    const html = await site.text();
    expect(html).toContain("the zebracorn survives upgrades");
    expect(html).toContain("forest");

    // An edit is committed and pushed to the same remote.
    const edit = await fetch(`${s.base}/api/v1/content/handbook/guides/upgrade-notes.md`, {
      method: "PUT",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ body: "Edited by the newer Quire.\n", lastKnownHash: page.content_hash }),
    });
    expect(edit.status).toBe(200);
    await waitFor(async () => ((await bare.show("guides/upgrade-notes.md")) ?? "").includes("Edited by the newer Quire."), 20_000, "the newer version's push");
  } finally {
    await stop(s);
  }
  timings.newerVersion = performance.now() - t;
  console.log(`older-version data (${oldCommit.slice(0, 10)}, schema ${oldSchema} → ${SCHEMA_VERSION}): build ${(timings.build! / 1000).toFixed(1)} s, older version ${(timings.olderVersion! / 1000).toFixed(1)} s, current ${(timings.newerVersion / 1000).toFixed(1)} s`);
}, 120_000);

test("a data directory from a newer schema is refused with a clear error, and left as it was", async () => {
  const dbPath = join(dataDir, "quire.db");
  const db = new Database(dbPath);
  db.query("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, 'from-a-newer-quire', '2030-01-01T00:00:00Z')").run(SCHEMA_VERSION + 1);
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  db.close();
  const hash = () => createHash("sha256").update(readFileSync(dbPath)).digest("hex");
  const was = hash();
  const size = statSync(dbPath).size;
  const r = await runCli(["serve", "--port", "0", "--data-dir", dataDir], { env: GIT_ENV, cwd: root });
  expect(r.code).toBe(1);
  expect(r.stderr).toContain(`This data directory was written by a newer Quire (database schema ${SCHEMA_VERSION + 1}; this version knows up to ${SCHEMA_VERSION})`);
  expect(r.stderr).toContain("Database migrations only go forward");
  expect(statSync(dbPath).size).toBe(size);
  expect(hash()).toBe(was);
}, 60_000);
