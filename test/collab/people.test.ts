import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { addMember, starterWorkspace } from "./support.ts";

let server: TestServer;
let owner: TestUser;
let viewer: TestUser;
let stranger: TestUser;
let ws: { id: string; slug: string };

beforeAll(async () => {
  server = await startTestServer();
  owner = await registerUser(server.url, { name: "Olga Owner" });
  viewer = await registerUser(server.url, { name: "Vera Viewer" });
  stranger = await registerUser(server.url, { name: "Stan Stranger" });
  ws = starterWorkspace(server, owner.id);
  addMember(server, ws.id, viewer.id, "viewer");
});
afterAll(() => server.close());

describe("workspace people", () => {
  test("any reader gets ids and names (no emails), by id or slug", async () => {
    for (const ref of [ws.id, ws.slug]) {
      const r = await viewer.client.get(`/api/v1/workspaces/${ref}/people`);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({
        items: [
          { id: owner.id, name: "Olga Owner" },
          { id: viewer.id, name: "Vera Viewer" },
        ],
        next_cursor: null,
      });
      expect(r.text).not.toContain("@example.test");
    }
  });

  test("a stranger gets 404 and no names; no credentials gets 401", async () => {
    const r = await stranger.client.get(`/api/v1/workspaces/${ws.id}/people`);
    expect(r.status).toBe(404);
    expect(r.body.error).toBe("NOT_FOUND");
    expect(r.text).not.toContain("Olga");
    const anon = await fetch(`${server.url}/api/v1/workspaces/${ws.id}/people`);
    expect(anon.status).toBe(401);
  });
});
