/** SiteService's plain methods, as the MCP tools call them: (principal, workspace, input) → result. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../../helpers/server.ts";
import { registerUser, type TestUser } from "../../helpers/factories.ts";
import type { Principal } from "../../../src/core/principal.ts";
import { get } from "./support.ts";

let server: TestServer;
let owner: TestUser;
let principal: Principal;
beforeAll(async () => {
  server = await startTestServer();
  owner = await registerUser(server.url);
  const ws = server.services.workspaces.byId(owner.workspaceId)!;
  principal = { kind: "session", userId: owner.id, orgId: ws.org_id, sessionId: "test" };
}, 30_000);
afterAll(() => server?.close());

describe("SiteService", () => {
  test("publish turns the site on and names its address; theme get and update validate", async () => {
    const { site } = server.services;
    expect(site.publish(principal, owner.workspaceSlug, { visibility: "public" })).toEqual({
      published: true,
      visibility: "public",
      url: `${server.config.baseUrl}/p/${owner.workspaceSlug}/`,
    });
    expect((await get(server, `/p/${owner.workspaceSlug}/`)).status).toBe(200);
    expect(site.getTheme(principal, owner.workspaceId)).toEqual({ theme: "default" });
    expect(site.updateTheme(principal, owner.workspaceSlug, { theme: "amber" })).toEqual({ theme: "amber" });
    expect(() => site.updateTheme(principal, owner.workspaceSlug, { theme: "neon" })).toThrow();
    expect(() => site.publish(principal, owner.workspaceSlug, { visibility: "everyone" })).toThrow();
    expect(site.getTheme(principal, owner.workspaceSlug)).toEqual({ theme: "amber" });
    expect(site.publish(principal, owner.workspaceSlug, { published: false }).published).toBe(false);
    expect((await get(server, `/p/${owner.workspaceSlug}/`)).status).toBe(404);
  });

  test("versions through the service; a stranger learns nothing", async () => {
    const { site } = server.services;
    const v = await site.createVersion(principal, owner.workspaceSlug, { slug: "v1", name: "One", snapshot: true });
    expect(v).toMatchObject({ slug: "v1", name: "One", base_path: "versions/v1", is_default: false });
    expect(site.listVersions(principal, owner.workspaceSlug).items.map((x) => x.slug)).toEqual(["v1"]);
    const stranger = await registerUser(server.url);
    const strangerPrincipal: Principal = { kind: "session", userId: stranger.id, orgId: "x", sessionId: "s" };
    expect(() => site.listVersions(strangerPrincipal, owner.workspaceSlug)).toThrow("Workspace not found");
  });

  test("HEAD answers the headers of GET without a body", async () => {
    server.services.site.publish(principal, owner.workspaceSlug, { published: true });
    const url = `${server.url}/p/${owner.workspaceSlug}/components`;
    const g = await fetch(url);
    await g.text();
    const h = await fetch(url, { method: "HEAD" });
    expect(h.status).toBe(200);
    expect(await h.text()).toBe("");
    expect(h.headers.get("etag")).toBe(g.headers.get("etag"));
  });
});
