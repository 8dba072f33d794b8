import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { Client } from "../helpers/client.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { addMember, starterWorkspace } from "../collab/support.ts";
import type { WorkspaceEvent } from "../../src/core/event-bus.ts";

let server: TestServer;
let owner: TestUser;
let viewer: TestUser;
let stranger: TestUser;
let ws: { id: string; slug: string };
const events: WorkspaceEvent[] = [];

beforeAll(async () => {
  server = await startTestServer();
  owner = await registerUser(server.url);
  viewer = await registerUser(server.url);
  stranger = await registerUser(server.url);
  ws = starterWorkspace(server, owner.id);
  addMember(server, ws.id, viewer.id, "viewer");
  server.services.bus.onEvent((e) => {
    if (e.type === "page-viewing") events.push(e);
  });
});
afterAll(() => server.close());

const viewing = (u: TestUser, body: unknown) => u.client.post(`/api/v1/workspaces/${ws.id}/viewing`, body);

describe("which page each person has open", () => {
  test("reported, listed for readers, announced once per change, cleared with null", async () => {
    events.length = 0;
    expect((await viewing(viewer, { path: "guides/index.md" })).status).toBe(204);
    expect((await viewing(viewer, { path: "guides/index.md" })).status).toBe(204); // a repeat keeps it alive, announces nothing
    expect((await viewing(owner, { path: "welcome.md" })).status).toBe(204);
    const list = await owner.client.get(`/api/v1/workspaces/${ws.slug}/viewing`);
    expect(list.status).toBe(200);
    expect(list.body.items.map((i: { user_id: string; path: string }) => [i.user_id, i.path]).sort()).toEqual(
      [
        [viewer.id, "guides/index.md"],
        [owner.id, "welcome.md"],
      ].sort(),
    );
    expect(events.map((e) => e.payload)).toEqual([
      { workspace_id: ws.id, user_id: viewer.id, path: "guides/index.md" },
      { workspace_id: ws.id, user_id: owner.id, path: "welcome.md" },
    ]);
    expect((await viewing(viewer, { path: null })).status).toBe(204);
    expect(events.at(-1)!.payload).toEqual({ workspace_id: ws.id, user_id: viewer.id, path: null });
    expect((await owner.client.get(`/api/v1/workspaces/${ws.id}/viewing`)).body.items).toHaveLength(1);
  });

  test("an entry that is not repeated lapses after the timeout", async () => {
    server.services.pageViewing.setTimeoutMs(150);
    expect((await viewing(viewer, { path: "lapsing.md" })).status).toBe(204);
    await Bun.sleep(400);
    const items = (await owner.client.get(`/api/v1/workspaces/${ws.id}/viewing`)).body.items;
    expect(items.some((i: { user_id: string }) => i.user_id === viewer.id)).toBe(false);
    expect(events.at(-1)!.payload).toMatchObject({ user_id: viewer.id, path: null });
    server.services.pageViewing.setTimeoutMs(90_000);
  });

  test("outsiders get 404, API keys and anonymous callers 401, bad bodies 400", async () => {
    const before = events.length;
    expect((await viewing(stranger, { path: "x.md" })).status).toBe(404);
    expect((await stranger.client.get(`/api/v1/workspaces/${ws.id}/viewing`)).status).toBe(404);
    expect((await new Client(server.url).post(`/api/v1/workspaces/${ws.id}/viewing`, { path: "x.md" })).status).toBe(401);
    const key = await owner.client.post("/api/v1/api-keys", { name: "k", scopes: ["read", "write"] });
    expect((await owner.client.post(`/api/v1/workspaces/${ws.id}/viewing`, { path: "x.md" }, { token: key.body.key })).status).toBe(401);
    for (const body of [{}, { path: "" }, { path: 5 }, { path: "a".repeat(513) }, { path: "x.md", extra: 1 }]) {
      const r = await viewing(owner, body);
      expect(r.status).toBe(400);
      expect(r.body.error).toBe("VALIDATION_ERROR");
    }
    expect(events.length).toBe(before);
  });
});
