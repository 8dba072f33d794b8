/**
 * A published site's page views and searches reach analytics through the real /p/ routes: counted
 * per page, with the referring host; a visitor is counted only with the consent cookie and no
 * opt-out signal (Sec-GPC, DNT); HEAD requests, unpublished pages, 404s and crawlers count nothing.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { get, publish, writePage } from "../publish/site/support.ts";

let server: TestServer;
let owner: TestUser;
beforeAll(async () => {
  server = await startTestServer();
  owner = await registerUser(server.url);
  await publish(owner);
  await writePage(owner, "guides/intro.md", { title: "Intro", body: "# Intro\n\nInstalling quasar widgets.\n" });
  await writePage(owner, "guides/draft.md", { title: "Draft", body: "not yet\n", publish: false });
  await server.services.search.whenIndexed(owner.workspaceId);
}, 30_000);
afterAll(() => server?.close());

const site = (path: string) => `/p/${owner.workspaceSlug}${path}`;
const report = async (name: string) => (await owner.client.get(`/api/v1/workspaces/${owner.workspaceId}/analytics/${name}?days=7`)).body;

test("page views, referrers and site searches are counted from the published site", async () => {
  for (let i = 0; i < 3; i++) expect((await get(server, site("/guides/intro"), { referer: "https://forum.example.net/t/42?token=abc" })).status).toBe(200);
  const first = await get(server, site("/guides/intro"));
  expect((await get(server, site("/guides/intro"), { "if-none-match": first.headers.get("etag")! })).status).toBe(304); // a revisit is a view
  await fetch(server.url + site("/guides/intro"), { method: "HEAD" });
  expect((await get(server, site("/guides/draft"))).status).toBe(404);
  expect((await get(server, site("/no-such-page"))).status).toBe(404);
  expect((await get(server, site("/search?q=quasar"))).status).toBe(200);
  expect((await get(server, site("/search?q=unobtainium"))).status).toBe(200);

  const pages = await report("pages");
  expect(pages.items).toEqual([{ path: "/guides/intro.md", views: 5 }]);
  expect(pages.referrers).toEqual([{ host: "forum.example.net", views: 3 }]);
  const searches = (await owner.client.get(`/api/v1/workspaces/${owner.workspaceId}/analytics/searches?source=site`)).body;
  expect(searches.items.map((r: { query: string }) => r.query).sort()).toEqual(["quasar", "unobtainium"]);
  expect(searches.no_results).toEqual([{ query: "unobtainium", searches: 1 }]);
});

test("a visitor is counted only with the consent cookie, and never when the browser sends an opt-out signal", async () => {
  const granted = "quire_analytics_consent=granted";
  await get(server, site("/guides/intro"), { cookie: granted, "x-forwarded-for": "203.0.113.50", "user-agent": "A" });
  await get(server, site("/guides/intro"), { cookie: granted, "x-forwarded-for": "203.0.113.50", "user-agent": "A" });
  await get(server, site("/guides/intro"), { cookie: granted, "x-forwarded-for": "203.0.113.51", "user-agent": "A", "sec-gpc": "1" });
  await get(server, site("/guides/intro"), { cookie: granted, "x-forwarded-for": "203.0.113.52", "user-agent": "A", dnt: "1" });
  await get(server, site("/guides/intro"), { cookie: "quire_analytics_consent=denied", "x-forwarded-for": "203.0.113.53", "user-agent": "A" });
  await get(server, site("/guides/intro"), { "x-forwarded-for": "203.0.113.54", "user-agent": "A" });
  // Crawlers and scripts that say so are not readers: not counted at all.
  for (const ua of ["Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "curl/8.5.0", "Slackbot-LinkExpanding 1.0"]) {
    expect((await get(server, site("/guides/intro"), { cookie: granted, "user-agent": ua })).status).toBe(200);
  }
  const overview = await report("overview");
  expect(overview.visitors).toBe(1);
  expect(overview.page_views).toBe(11);
});
