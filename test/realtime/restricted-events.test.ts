/**
 * WebSocket events in a workspace with a restricted folder (docs/decisions/restricted-folders.md):
 * people with access get every page event as before; a member without access gets none that names
 * a hidden page, sees a page moved out of the folder appear and one moved in disappear.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { memberWithRole } from "../access/support.ts";
import { connect, type WsClient } from "./ws-client.ts";

let server: TestServer;
let owner: TestUser;
let ana: TestUser;
let bob: TestUser;
beforeAll(async () => {
  server = await startTestServer();
  owner = await registerUser(server.url);
  ana = await memberWithRole(server, owner, owner.workspaceId, "editor");
  bob = await memberWithRole(server, owner, owner.workspaceId, "editor");
});
afterAll(() => server.close());

test("each socket is told exactly what its person may see", async () => {
  const base = `/api/v1/content/${owner.workspaceSlug}`;
  const r = await owner.client.put(`/api/v1/workspaces/${owner.workspaceId}/access`, { path: "hr/", entries: [{ who: ana.email, level: "edit" }] });
  expect(r.status).toBe(200);
  const sockets: Record<string, WsClient> = { owner: await connect(server, owner), ana: await connect(server, ana), bob: await connect(server, bob) };
  try {
    const secret = await owner.client.post(`${base}/hr/salaries.md`, { title: "Salaries", body: "Bands.\n" });
    expect(secret.status).toBe(201);
    await owner.client.put(`${base}/hr/salaries.md`, { body: "New bands.\n", lastKnownHash: secret.body.content_hash });
    await owner.client.post(`${base}/notes.md`, { title: "Notes", body: "Open.\n" });
    await owner.client.patch(`${base}/notes.md`, { new_path: "hr/notes.md" }); // into the folder
    await owner.client.patch(`${base}/hr/salaries.md`, { new_path: "salaries.md" }); // out of it
    await owner.client.delete(`${base}/salaries.md`);
    // The last event everyone sees is the deletion of the page now outside the folder.
    for (const s of Object.values(sockets)) await s.next((f) => f.type === "page-deleted" && f.payload.path === "salaries.md");
    const seen = (s: WsClient) =>
      s.frames.filter((f) => f.type.startsWith("page-")).map((f) => `${f.type} ${f.payload.path ?? `${f.payload.old_path}→${f.payload.new_path}`}`);
    const everything = [
      "page-created hr/salaries.md",
      "page-updated hr/salaries.md",
      "page-created notes.md",
      "page-moved notes.md→hr/notes.md",
      "page-moved hr/salaries.md→salaries.md",
      "page-deleted salaries.md",
    ];
    expect(seen(sockets.owner!)).toEqual(everything);
    expect(seen(sockets.ana!)).toEqual(everything);
    expect(seen(sockets.bob!)).toEqual(["page-created notes.md", "page-deleted notes.md", "page-created salaries.md", "page-deleted salaries.md"]);
    expect(JSON.stringify(sockets.bob!.frames)).not.toContain("hr/");
  } finally {
    for (const s of Object.values(sockets)) s.close();
  }
});
