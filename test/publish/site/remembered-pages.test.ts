/**
 * A page answered to a plain anonymous GET is remembered by its path and answered again without
 * the site's dispatch (site-server.ts). Remembering must change nothing a reader sees: every change
 * of the page, the site's settings or the request itself gives the answer the whole way gives.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../../helpers/server.ts";
import { registerUser, type TestUser } from "../../helpers/factories.ts";
import { get, publish, writeManifest, writePage } from "./support.ts";

let server: TestServer;
let owner: TestUser;
beforeAll(async () => {
  server = await startTestServer();
  owner = await registerUser(server.url);
  await publish(owner);
  await writePage(owner, "guide.md", { title: "Guide", body: "# Guide\n\nFirst words.\n" });
}, 30_000);
afterAll(() => server?.close());

const page = () => `/p/${owner.workspaceSlug}/guide`;

test("a remembered page answers as the first time, and an edit shows at once", async () => {
  const first = await get(server, page());
  const again = await get(server, page());
  expect(again.status).toBe(200);
  expect(again.text).toBe(first.text);
  for (const name of ["etag", "cache-control", "content-security-policy", "vary"]) expect(again.headers.get(name)).toBe(first.headers.get(name));
  // The same response for every reader: no header of one request's own on either.
  expect([...again.headers.keys()].sort()).toEqual([...first.headers.keys()].sort());
  expect(again.headers.get("x-request-id")).toBeNull();

  const current = await owner.client.get(`/api/v1/content/${owner.workspaceSlug}/guide.md`);
  const saved = await owner.client.put(`/api/v1/content/${owner.workspaceSlug}/guide.md`, { body: "# Guide\n\nSecond words.\n", lastKnownHash: current.body.content_hash });
  expect(saved.status).toBe(200);
  const edited = await get(server, page());
  expect(edited.text).toContain("Second words.");
  expect(edited.headers.get("etag")).not.toBe(first.headers.get("etag"));
});

test("what the request says still counts after the page is remembered", async () => {
  const plain = await get(server, page());
  await get(server, page());
  // A cookie names a reader: never for a shared cache.
  const withCookie = await get(server, page(), { cookie: "theme=dark" });
  expect(withCookie.status).toBe(200);
  expect(withCookie.headers.get("cache-control")).toBe("private, no-store");
  // Revalidation, the Markdown twin and HEAD are answered as ever.
  expect((await get(server, page(), { "if-none-match": plain.headers.get("etag")! })).status).toBe(304);
  const markdown = await get(server, page(), { accept: "text/markdown" });
  expect(markdown.headers.get("content-type")).toStartWith("text/markdown");
  expect(markdown.text).toContain("Second words.");
  const head = await fetch(server.url + page(), { method: "HEAD", headers: { "x-forwarded-for": "10.66.0.1" } });
  expect(head.status).toBe(200);
  expect((await head.arrayBuffer()).byteLength).toBe(0);
});

test("a manifest written on disk reaches a remembered page within a second, as before", async () => {
  await get(server, page());
  await get(server, page());
  writeManifest(server, owner, "nav.yaml", "- heading: Start here\n- file: guide.md\n");
  await Bun.sleep(1100);
  expect((await get(server, page())).text).toContain("Start here");
});

test("members-only and unpublished sites are never served from what was remembered", async () => {
  await get(server, page());
  expect((await get(server, page())).status).toBe(200);
  await publish(owner, { visibility: "authenticated" });
  const closed = await get(server, page());
  expect(closed.status).toBe(302);
  expect(closed.headers.get("location")).toStartWith("/login?next=");
  await publish(owner, { visibility: "public" });
  expect((await get(server, page())).status).toBe(200);
  const off = await owner.client.put(`/api/v1/workspaces/${owner.workspaceId}/admin/settings`, { published: false });
  expect(off.status).toBe(200);
  expect((await get(server, page())).status).toBe(404);
});
