/**
 * Shared set-up for the search, realtime and collaboration tests: finding a user's starter
 * workspace, adding members with a given role, and page snapshots as the ledger publishes them.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { TestServer } from "../helpers/server.ts";
import type { PageSnapshot } from "../../src/core/event-bus.ts";
import { ulid } from "../../src/core/ids.ts";
import { sha256Hex } from "../../src/core/crypto.ts";

/** The starter workspace created for a user at registration. */
export function starterWorkspace(server: TestServer, userId: string): { id: string; slug: string } {
  const row = server.services.db
    .query<{ id: string; slug: string }, [string]>(
      `SELECT w.id, w.slug FROM workspaces w JOIN workspace_members m ON m.workspace_id = w.id
       WHERE m.user_id = ? AND w.deleted_at IS NULL ORDER BY w.created_at LIMIT 1`,
    )
    .get(userId);
  if (!row) throw new Error("user has no workspace");
  return row;
}

export function addMember(server: TestServer, workspaceId: string, userId: string, role: string): void {
  server.services.db
    .query(
      `INSERT INTO workspace_members (workspace_id, user_id, role, joined_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (workspace_id, user_id) DO UPDATE SET role = excluded.role`,
    )
    .run(workspaceId, userId, role, new Date().toISOString());
}

export function removeMember(server: TestServer, workspaceId: string, userId: string): void {
  server.services.db.query("DELETE FROM workspace_members WHERE workspace_id = ? AND user_id = ?").run(workspaceId, userId);
}

export function snapshot(overrides: Partial<PageSnapshot> = {}): PageSnapshot {
  return {
    page_id: ulid(),
    path: `notes/${Math.random().toString(36).slice(2, 8)}.md`,
    title: "Untitled",
    description: "",
    tags: [],
    body: "",
    ...overrides,
  };
}

/**
 * Writes a page the way the ledger stores it (file under the workspace folder plus a `pages`
 * row), without announcing it: for tests of what is rebuilt from disk.
 */
export function writeLedgerPage(server: TestServer, workspaceId: string, page: PageSnapshot): void {
  const text = `---\nid: ${page.page_id}\ntitle: ${page.title}\n---\n\n${page.body}`;
  const file = join(server.dataDir, "workspaces", workspaceId, page.path);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  const now = new Date().toISOString();
  server.services.db
    .query(
      `INSERT INTO pages (id, workspace_id, path, title, description, tags, content_hash, frontmatter_hash, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(page.page_id, workspaceId, page.path, page.title, page.description, JSON.stringify(page.tags), `sha256:${sha256Hex(text)}`, "sha256:0", now, now);
}
