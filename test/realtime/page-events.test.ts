/**
 * Page events on a real WebSocket, each caused by a real API call: page-updated, page-moved, the
 * linking page's page-updated after a move rewrote its link, and page-deleted, with the payload
 * fields docs/interfaces.md §6 names, in the `{type, payload, ts}` envelope; members receive them, strangers do not.
 */
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { addMember, starterWorkspace } from "../collab/support.ts";
import { connect, type Frame, type WsClient } from "./ws-client.ts";

let server: TestServer;
const open: WsClient[] = [];
beforeAll(async () => {
  server = await startTestServer();
});
afterEach(() => {
  for (const c of open.splice(0)) c.close();
});
afterAll(() => server.close());

const PAGE_EVENTS = new Set(["page-created", "page-updated", "page-deleted", "page-moved"]);
const pageFrames = (c: WsClient): Frame[] => c.frames.filter((f) => PAGE_EVENTS.has(f.type));
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

test("update, move (with the linking page rewritten) and delete reach every member's socket with the payloads of docs/interfaces.md §6", async () => {
  const owner: TestUser = await registerUser(server.url);
  const ws = starterWorkspace(server, owner.id);
  const viewer = await registerUser(server.url);
  addMember(server, ws.id, viewer.id, "viewer");
  const stranger = await registerUser(server.url);
  const base = `/api/v1/content/${ws.slug}`;

  const target = await owner.client.post(`${base}/guides/setup`, { title: "Setup", body: "Install it.\n" });
  expect(target.status).toBe(201);
  const linker = await owner.client.post(`${base}/linker`, { title: "Linker", body: "Read [[guides/setup]] first.\n" });
  expect(linker.status).toBe(201);

  const mine = await connect(server, owner);
  const theirs = await connect(server, viewer);
  const outside = await connect(server, stranger);
  open.push(mine, theirs, outside);
  expect(mine.frames[0]!.payload.workspaces).toContain(ws.id);
  expect(theirs.frames[0]!.payload.workspaces).toContain(ws.id);
  const actor = { id: owner.id, name: owner.name };

  // page-updated: a PUT of the body.
  const updated = await owner.client.put(`${base}/guides/setup.md`, { body: "Install it twice.\n", lastKnownHash: target.body.content_hash });
  expect(updated.status).toBe(200);
  const u = await mine.next((f) => f.type === "page-updated" && f.payload.path === "guides/setup.md");
  expect(u.payload).toEqual({ workspace_id: ws.id, path: "guides/setup.md", actor });

  // page-moved, then page-updated for the page whose [[link]] the move rewrote.
  const moved = await owner.client.patch(`${base}/guides/setup.md`, { new_path: "manual/setup.md" });
  expect(moved.status).toBe(200);
  const m = await mine.next((f) => f.type === "page-moved");
  expect(m.payload).toEqual({ workspace_id: ws.id, old_path: "guides/setup.md", new_path: "manual/setup.md", actor });
  const l = await mine.next((f) => f.type === "page-updated" && f.payload.path === "linker.md");
  expect(l.payload).toEqual({ workspace_id: ws.id, path: "linker.md", actor });
  const linkerNow = await owner.client.get(`${base}/linker.md`);
  expect(linkerNow.body.content).toBe("Read [[manual/setup]] first.\n");
  expect(linkerNow.body.content_hash).not.toBe(linker.body.content_hash);

  // page-deleted: a DELETE of the moved page at its new path.
  expect((await owner.client.delete(`${base}/manual/setup.md`)).status).toBe(204);
  const d = await mine.next((f) => f.type === "page-deleted");
  expect(d.payload).toEqual({ workspace_id: ws.id, path: "manual/setup.md", actor });

  // The whole sequence, in order, in the envelope docs/architecture.md §8 fixes; the viewer saw the same.
  const expected = [
    ["page-updated", "guides/setup.md"],
    ["page-moved", "manual/setup.md"],
    ["page-updated", "linker.md"],
    ["page-deleted", "manual/setup.md"],
  ];
  const summary = (c: WsClient) => pageFrames(c).map((f) => [f.type, f.payload.path ?? f.payload.new_path]);
  expect(summary(mine)).toEqual(expected);
  await theirs.next((f) => f.type === "page-deleted");
  expect(summary(theirs)).toEqual(expected);
  expect(pageFrames(theirs).map((f) => f.payload)).toEqual(pageFrames(mine).map((f) => f.payload));
  for (const f of pageFrames(mine)) {
    expect(Object.keys(f).sort()).toEqual(["payload", "ts", "type"]);
    expect(f.ts).toMatch(ISO);
  }

  // Someone outside the workspace got none of it (their own workspace stays quiet meanwhile).
  await Bun.sleep(50);
  expect(pageFrames(outside)).toEqual([]);
});

test("a refused change (stale hash) sends no event; the next accepted one does", async () => {
  const owner = await registerUser(server.url);
  const ws = starterWorkspace(server, owner.id);
  const base = `/api/v1/content/${ws.slug}`;
  const page = await owner.client.post(`${base}/notes`, { title: "Notes", body: "v1\n" });
  const c = await connect(server, owner);
  open.push(c);

  const ok = await owner.client.put(`${base}/notes.md`, { body: "v2\n", lastKnownHash: page.body.content_hash });
  expect(ok.status).toBe(200);
  const stale = await owner.client.put(`${base}/notes.md`, { body: "v2 from a stale tab\n", lastKnownHash: page.body.content_hash });
  expect(stale.status).toBe(409);
  const missing = await owner.client.delete(`${base}/nowhere.md`);
  expect(missing.status).toBe(404);
  const ok2 = await owner.client.put(`${base}/notes.md`, { body: "v3\n", lastKnownHash: ok.body.content_hash });
  expect(ok2.status).toBe(200);
  await c.next((f) => f.type === "page-updated" && c.frames.filter((x) => x.type === "page-updated").length === 2);
  await Bun.sleep(50);
  expect(pageFrames(c).map((f) => [f.type, f.payload.path])).toEqual([
    ["page-updated", "notes.md"],
    ["page-updated", "notes.md"],
  ]);
});
