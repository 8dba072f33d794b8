import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../../helpers/server.ts";
import { registerUser, type TestUser } from "../../helpers/factories.ts";
import { memberWithRole } from "../../access/support.ts";
import { get, publish, writePage } from "./support.ts";

/**
 * The published site of a workspace with a restricted folder (docs/decisions/restricted-folders.md):
 * the folder's pages are on no page, feed, search or export unless its list gives group:everyone view.
 */
let server: TestServer;
let owner: TestUser;
let ana: TestUser;
const SECRET = "wombatledger";

beforeAll(async () => {
  server = await startTestServer();
  owner = await registerUser(server.url);
  ana = await memberWithRole(server, owner, owner.workspaceId, "editor");
  await writePage(owner, "hr/salaries.md", { title: "Salaries", body: `Bands ${SECRET}.` });
  await writePage(owner, "open.md", { title: "Open", body: "Everyone." });
  await publish(owner);
});
afterAll(() => server.close());

const site = (path: string) => get(server, `/p/${owner.workspaceSlug}/${path}`);
const access = (entries: unknown[]) => owner.client.put(`/api/v1/workspaces/${owner.workspaceId}/access`, { path: "hr/", entries });

test("a restricted folder is off the site, its feeds and its search until everyone may view it", async () => {
  expect((await site("hr/salaries")).status).toBe(200);
  expect((await access([{ who: ana.email, level: "edit" }])).status).toBe(200);
  const missing = await site("hr/nothing-here");
  const hidden = await site("hr/salaries");
  expect(hidden.status).toBe(404);
  expect(hidden.text).toBe(missing.text.replaceAll("hr/nothing-here", "hr/salaries"));
  expect((await site("hr/salaries.md")).status).toBe(404);
  for (const feed of ["sitemap.xml", "rss.xml", "llms.txt", "llms-full.txt", `search?q=${SECRET}`]) {
    const r = await site(feed);
    expect(r.status).toBe(200);
    expect(r.text).not.toContain("hr/salaries");
    expect(r.text).not.toContain(SECRET);
    expect(r.text).not.toContain("Salaries");
  }
  expect((await site("open")).status).toBe(200);
  const exported = await owner.client.get(`/api/v1/workspaces/${owner.workspaceId}/export`);
  expect(exported.status).toBe(200);
  // A ZIP names its files in plain text: the open page is there, the hidden one is not.
  expect(exported.text).toContain("open.html");
  expect(exported.text).not.toContain("hr/salaries");

  expect((await access([{ who: ana.email, level: "edit" }, { who: "group:everyone", level: "view" }])).status).toBe(200);
  expect((await site("hr/salaries")).status).toBe(200);
  expect((await site("sitemap.xml")).text).toContain("hr/salaries");
});
