import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTxtDns, type TxtDns } from "../../helpers/txt-dns.ts";
import { startTestServer, type TestServer } from "../../helpers/server.ts";
import { registerUser, type TestUser } from "../../helpers/factories.ts";
import { get, publish, rawGet, writePage } from "./support.ts";

let dns: TxtDns;
let server: TestServer;
let owner: TestUser;

beforeAll(async () => {
  dns = await startTxtDns();
  server = await startTestServer({ CUSTOM_DOMAIN_RESOLVER: dns.resolver });
  owner = await registerUser(server.url);
  await publish(owner);
  await writePage(owner, "index.md", { title: "Docs home", body: "# Docs home\n\nhello from the custom domain\n" });
  await writePage(owner, "guide.md", { title: "Guide", body: "# Guide\n\nversion one text\n" });
}, 30_000);
afterAll(async () => {
  await server?.close();
  await dns?.close();
});

describe("custom domains", () => {
  test("pending until the TXT record holds the token; then the Host serves the site at /", async () => {
    const domain = "docs.example.test";
    const set = await owner.client.put(`/api/v1/workspaces/${owner.workspaceId}/custom-domain`, { domain: "Docs.Example.Test" });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ domain, status: "failed", verification: { type: "TXT", name: `_quire-challenge.${domain}` } });
    const token = set.body.verification.value as string;
    // Not verified: that Host is served nothing at all, even paths that exist elsewhere.
    for (const path of ["/", "/guide", `/p/${owner.workspaceSlug}/guide`]) {
      expect((await rawGet(server, path, { host: domain })).status).toBe(404);
    }
    dns.records.set(`_quire-challenge.${domain}`, "wrong value");
    expect((await owner.client.post(`/api/v1/workspaces/${owner.workspaceId}/custom-domain/verify`)).body.status).toBe("failed");
    dns.records.set(`_quire-challenge.${domain}`, token);
    const verified = await owner.client.post(`/api/v1/workspaces/${owner.workspaceId}/custom-domain/verify`);
    if (verified.body.status !== "verified") throw new Error(JSON.stringify(verified.body));
    const home = await rawGet(server, "/", { host: `${domain}:443` });
    expect(home.status).toBe(200);
    expect(home.body).toContain("hello from the custom domain");
    expect(home.body).toContain(`<link rel="canonical" href="https://${domain}/">`);
    const guide = await rawGet(server, "/guide", { host: domain });
    expect(guide.body).toContain(`href="/guide"`);
    // The site's URLs on its domain carry no /p/ prefix; another workspace's site is not reachable through it.
    const other = await registerUser(server.url);
    await publish(other);
    await writePage(other, "theirs.md", { title: "Theirs", body: "other workspace\n" });
    expect((await rawGet(server, `/p/${other.workspaceSlug}/theirs`, { host: domain })).status).toBe(404);
    expect((await owner.client.get(`/api/v1/workspaces/${owner.workspaceId}/site`)).body.url).toBe(`https://${domain}/`);
  });

  test("a domain another workspace uses is refused; the instance's own host is refused", async () => {
    const other = await registerUser(server.url);
    const r = await other.client.put(`/api/v1/workspaces/${other.workspaceId}/custom-domain`, { domain: "docs.example.test" });
    expect(r.status).toBe(409);
    const own = await other.client.put(`/api/v1/workspaces/${other.workspaceId}/custom-domain`, { domain: new URL(server.config.baseUrl).hostname + ".x" });
    expect([200, 400]).toContain(own.status);
    const bad = await other.client.put(`/api/v1/workspaces/${other.workspaceId}/custom-domain`, { domain: "not a host" });
    expect(bad.status).toBe(400);
    const viewerless = await registerUser(server.url);
    expect((await viewerless.client.put(`/api/v1/workspaces/${owner.workspaceId}/custom-domain`, { domain: "x.example.test" })).status).toBe(404);
  });

  test("removing the domain stops serving it", async () => {
    expect((await owner.client.delete(`/api/v1/workspaces/${owner.workspaceId}/custom-domain`)).status).toBe(204);
    expect((await rawGet(server, "/", { host: "docs.example.test" })).body).not.toContain("hello from the custom domain");
    expect((await owner.client.get(`/api/v1/workspaces/${owner.workspaceId}/custom-domain`)).status).toBe(404);
  });
});

describe("versions", () => {
  test("a snapshot copies the published pages through the ledger; the old version keeps its text", async () => {
    const created = await owner.client.post(`/api/v1/workspaces/${owner.workspaceId}/versions`, { slug: "v1", name: "Version 1", snapshot: true });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ slug: "v1", name: "Version 1", base_path: "versions/v1", is_default: false });
    const copy = await owner.client.get(`/api/v1/content/${owner.workspaceSlug}/versions/v1/guide.md`);
    expect(copy.status).toBe(200);
    const original = await owner.client.get(`/api/v1/content/${owner.workspaceSlug}/guide.md`);
    expect(copy.body.page_id).not.toBe(original.body.page_id);
    // No default version: the root shows the current docs, v1 lives under /v1/.
    expect((await get(server, `/p/${owner.workspaceSlug}/v1/guide`)).text).toContain("version one text");
    // The current docs move on; v2 becomes the default and v1 stays readable under /v1/.
    await owner.client.put(`/api/v1/content/${owner.workspaceSlug}/guide.md`, { body: "# Guide\n\nversion two text\n", lastKnownHash: original.body.content_hash });
    const v2 = await owner.client.post(`/api/v1/workspaces/${owner.workspaceId}/versions`, { slug: "v2", name: "Version 2", base_path: "v2docs", snapshot: true, is_default: true });
    expect(v2.status).toBe(201);
    const latest = await get(server, `/p/${owner.workspaceSlug}/guide`);
    expect(latest.text).toContain("version two text");
    expect(latest.text).toContain("version-switcher");
    const old = await get(server, `/p/${owner.workspaceSlug}/v1/guide`);
    expect(old.status).toBe(200);
    expect(old.text).toContain("version one text");
    expect(old.text).toContain(`href="/p/${owner.workspaceSlug}/v1/guide"`);
    const list = await owner.client.get(`/api/v1/workspaces/${owner.workspaceId}/versions`);
    expect(list.body.items.map((v: { slug: string }) => v.slug)).toEqual(["v2", "v1"]);
    expect((await owner.client.put(`/api/v1/workspaces/${owner.workspaceId}/versions/v1/default`)).body.is_default).toBe(true);
    expect((await get(server, `/p/${owner.workspaceSlug}/guide`)).text).toContain("version one text");
    expect((await get(server, `/p/${owner.workspaceSlug}/v2/guide`)).text).toContain("version two text");
  });

  test("a version whose base_path holds nothing serves 404 and leaves the site up", async () => {
    const r = await owner.client.post(`/api/v1/workspaces/${owner.workspaceId}/versions`, { slug: "ghost", name: "Ghost", base_path: "nowhere/at/all" });
    expect(r.status).toBe(201);
    expect((await get(server, `/p/${owner.workspaceSlug}/ghost/guide`)).status).toBe(404);
    expect((await get(server, `/p/${owner.workspaceSlug}/guide`)).status).toBe(200);
    expect((await owner.client.delete(`/api/v1/workspaces/${owner.workspaceId}/versions/ghost`)).status).toBe(204);
    expect((await owner.client.get(`/api/v1/workspaces/${owner.workspaceId}/versions/ghost`)).status).toBe(404);
  });

  test("bad input changes nothing", async () => {
    const before = (await owner.client.get(`/api/v1/workspaces/${owner.workspaceId}/versions`)).body.items.length;
    for (const body of [
      { slug: "../x", name: "x" },
      { slug: "search", name: "reserved" },
      { slug: "v9", name: "" },
      { slug: "v9", name: "x", base_path: "../outside" },
      { slug: "v9", name: "x", base_path: ".git" },
      { slug: "v9", name: "x", extra: 1 },
      { slug: "v1", name: "duplicate" },
    ]) {
      const r = await owner.client.post(`/api/v1/workspaces/${owner.workspaceId}/versions`, body);
      expect([400, 409]).toContain(r.status);
    }
    expect((await owner.client.get(`/api/v1/workspaces/${owner.workspaceId}/versions`)).body.items.length).toBe(before);
  });
});
