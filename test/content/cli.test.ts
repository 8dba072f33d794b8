import { afterAll, expect, test } from "bun:test";
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { startTestServer, tempDir } from "../helpers/server.ts";
import { registerUser } from "../helpers/factories.ts";
import { runCli } from "../cli/spawn.ts";
import { tryLock } from "../../src/ops/instance-lock.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

test("init creates the data directory, database, key and a workspace in the default organization; rebuild indexes files", async () => {
  const dataDir = join(tempDir(), "data");
  dirs.push(dataDir);
  const init = await runCli(["init", "--workspace-name", "Team Docs", "--slug", "team-docs", "--data-dir", dataDir]);
  expect(init.stderr).toBe("");
  expect(init.code).toBe(0);
  const id = /id ([0-9A-Z]{26})/.exec(init.stdout)![1]!;
  expect(existsSync(join(dataDir, "quire.db"))).toBe(true);
  expect(existsSync(join(dataDir, "jwt-private.pem"))).toBe(true);
  const db = new Database(join(dataDir, "quire.db"), { readonly: true });
  const ws = db.query<{ slug: string; name: string; is_default: number }, [string]>(
    "SELECT w.slug, w.name, o.is_default FROM workspaces w JOIN organizations o ON o.id = w.org_id WHERE w.id = ?",
  ).get(id);
  db.close();
  expect(ws).toEqual({ slug: "team-docs", name: "Team Docs", is_default: 1 });

  const wsDir = join(dataDir, "workspaces", id);
  mkdirSync(join(wsDir, "guide"), { recursive: true });
  writeFileSync(join(wsDir, "index.md"), "---\ntitle: Home\n---\nHi\n");
  writeFileSync(join(wsDir, "guide", "one.md"), "# One\n\nThe quokkaphone is only in this file.\n");
  // The index is derived data: with search/ gone, rebuild --search writes it again from the files.
  rmSync(join(dataDir, "search"), { recursive: true, force: true });
  const rebuild = await runCli(["rebuild", "-w", id, "--search", "--data-dir", dataDir]);
  expect(rebuild.code).toBe(0);
  expect(rebuild.stdout).toContain("inserted: 2\nupdated: 0\norphaned: 0\n");
  expect(rebuild.stdout).toContain("search: 2 page(s) indexed");
  // The word is in the index file the command wrote (read before any server could build one)...
  const index = new Database(join(dataDir, "search", "index.db"), { readonly: true });
  const hits = index
    .query<{ path: string }, [string]>(`SELECT d.path FROM "f_${id}" f JOIN "d_${id}" d ON d.id = f.rowid WHERE "f_${id}" MATCH ?`)
    .all("quokkaphone");
  index.close();
  expect(hits).toEqual([{ path: "guide/one.md" }]);
  // ...and a server over this data directory finds the page by it.
  const server = await startTestServer({}, { dataDir, keepDir: true });
  try {
    const reader = await registerUser(server.url);
    server.services.db
      .query("INSERT INTO workspace_members (workspace_id, user_id, role, joined_at) VALUES (?, ?, 'viewer', ?)")
      .run(id, reader.id, new Date().toISOString());
    const found = await reader.client.get(`/api/v1/workspaces/${id}/search?q=quokkaphone`);
    expect(found.status).toBe(200);
    expect(found.body.items.map((h: { path: string }) => h.path)).toEqual(["guide/one.md"]);
  } finally {
    await server.close();
  }
  expect(readFileSync(join(wsDir, "index.md"), "utf8")).toMatch(/^---\nid: [0-9A-Z]{26}\ntitle: Home\n---\nHi\n$/);
  rmSync(join(wsDir, "guide"), { recursive: true });
  const again = await runCli(["rebuild", "--workspace", id, "--data-dir", dataDir]);
  expect(again.stdout).toContain("inserted: 0\nupdated: 0\norphaned: 1\n");

  // A taken slug and a bad slug are refused.
  const taken = await runCli(["init", "--workspace-name", "X", "--slug", "team-docs", "--data-dir", dataDir]);
  expect(taken.code).toBe(1);
  expect(taken.stderr).toContain("already exists");
  const bad = await runCli(["init", "--workspace-name", "X", "--slug", "Bad Slug!", "--data-dir", dataDir]);
  expect(bad.code).toBe(1);
  expect(bad.stderr).toContain("slug");
});

test("init --git-url that cannot be cloned leaves no workspace (exit 1); rebuild needs a known workspace id", async () => {
  const dataDir = tempDir();
  dirs.push(dataDir);
  const git = await runCli(["init", "--workspace-name", "X", "--slug", "x", "--git-url", "https://example.invalid/r.git", "--data-dir", dataDir]);
  expect(git.code).toBe(1);
  expect(git.stderr).toContain("--git-url");
  const db = new Database(join(dataDir, "quire.db"), { readonly: true });
  expect(db.query("SELECT COUNT(*) AS n FROM workspaces").get()).toEqual({ n: 0 });
  db.close();
  expect(existsSync(join(dataDir, "workspaces")) ? readdirSync(join(dataDir, "workspaces")) : []).toEqual([]);
  const unknown = await runCli(["rebuild", "-w", "01J0000000000000000000000Z", "--data-dir", dataDir]);
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toContain("No workspace");
  const notUlid = await runCli(["rebuild", "-w", "docs", "--data-dir", dataDir]);
  expect(notUlid.code).toBe(2);
});

test("init and rebuild refuse to run while another process holds the data directory", async () => {
  const dataDir = tempDir();
  dirs.push(dataDir);
  const lock = tryLock(dataDir)!;
  try {
    const init = await runCli(["init", "--workspace-name", "X", "--slug", "x", "--data-dir", dataDir]);
    expect(init.code).toBe(1);
    expect(init.stderr).toContain("holds the lock");
    const rebuild = await runCli(["rebuild", "-w", "01J0000000000000000000000Z", "--data-dir", dataDir]);
    expect(rebuild.code).toBe(1);
    expect(rebuild.stderr).toContain("holds the lock");
  } finally {
    lock.release();
  }
  expect(existsSync(join(dataDir, "quire.db"))).toBe(false);
});
