/** Helpers shared by the content tests: a workspace owner, its folder on disk, raw HTTP, bus recorders. */
import { connect } from "node:net";
import { join } from "node:path";
import { existsSync, readFileSync } from "node:fs";
import type { TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import type { LedgerChange, WorkspaceEvent } from "../../src/core/event-bus.ts";

export interface Owner extends TestUser {
  slug: string;
  wsId: string;
  /** The workspace folder on disk. */
  dir: string;
  /** `/api/v1/content/{slug}` */
  base: string;
}

/** A newly registered user and their starter workspace (looked up in the database, the source of truth). */
export async function owner(server: TestServer): Promise<Owner> {
  const user = await registerUser(server.url);
  const ws = server.services.db
    .query<{ id: string; slug: string }, [string]>("SELECT id, slug FROM workspaces WHERE created_by = ? ORDER BY created_at LIMIT 1")
    .get(user.id)!;
  return { ...user, slug: ws.slug, wsId: ws.id, dir: join(server.dataDir, "workspaces", ws.id), base: `/api/v1/content/${ws.slug}` };
}

export function fileOf(o: Owner, path: string): string | null {
  const abs = join(o.dir, path);
  return existsSync(abs) ? readFileSync(abs, "utf8") : null;
}

export interface PageRowLite {
  id: string;
  path: string;
  title: string;
  content_hash: string;
  deleted_at: string | null;
  sort_order: number | null;
}

export function pageRows(server: TestServer, wsId: string): PageRowLite[] {
  return server.services.db
    .query<PageRowLite, [string]>("SELECT id, path, title, content_hash, deleted_at, sort_order FROM pages WHERE workspace_id = ? ORDER BY path")
    .all(wsId);
}

export function livePage(server: TestServer, wsId: string, path: string): PageRowLite | null {
  return server.services.db
    .query<PageRowLite, [string, string]>("SELECT id, path, title, content_hash, deleted_at, sort_order FROM pages WHERE workspace_id = ? AND path = ? AND deleted_at IS NULL")
    .get(wsId, path);
}

export function activityRows(server: TestServer, wsId: string) {
  return server.services.db
    .query<{ action: string; actor_id: string | null; actor_name: string; page_id: string | null; page_path: string | null; details: string }, [string]>(
      "SELECT action, actor_id, actor_name, page_id, page_path, details FROM activity WHERE workspace_id = ? ORDER BY id",
    )
    .all(wsId);
}

/**
 * Records, from now on, the events and ledger changes of one workspace. Only that one: the test server is shared
 * by a file's tests, and another test's workspace may still be reconciling a file it wrote on disk
 * (the watcher waits for the changes to settle), so its events can arrive at any moment.
 */
export function recordBus(server: TestServer, workspaceId: string) {
  const events: WorkspaceEvent[] = [];
  const changes: LedgerChange[] = [];
  const offEvents = server.services.bus.onEvent((e) => {
    if (e.workspace_id === workspaceId) events.push(e);
  });
  const offChanges = server.services.bus.onChange((c) => {
    if (c.workspace_id === workspaceId) changes.push(c);
  });
  return {
    events,
    changes,
    stop() {
      offEvents();
      offChanges();
    },
  };
}

/**
 * Sends one HTTP/1.1 request with the request target exactly as given (fetch would normalize
 * `..` and `%2e%2e` away before they reach the server) and returns status and body.
 */
export function rawRequest(
  server: TestServer,
  method: string,
  target: string,
  opts: { token?: string; body?: string; ip?: string } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, "127.0.0.1");
    const chunks: Buffer[] = [];
    const body = opts.body ?? "";
    const head = [
      `${method} ${target} HTTP/1.1`,
      `Host: 127.0.0.1:${server.port}`,
      "Connection: close",
      `X-Forwarded-For: ${opts.ip ?? "10.250.0.1"}`,
      ...(opts.token ? [`Authorization: Bearer ${opts.token}`] : []),
      ...(body ? ["Content-Type: application/json", `Content-Length: ${Buffer.byteLength(body)}`] : []),
      "",
      "",
    ].join("\r\n");
    socket.on("connect", () => socket.write(head + body));
    socket.on("data", (c: Buffer) => chunks.push(c));
    socket.on("error", reject);
    socket.on("close", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      resolve({ status, body: text.slice(text.indexOf("\r\n\r\n") + 4) });
    });
  });
}
