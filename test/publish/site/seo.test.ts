import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../../helpers/server.ts";
import { registerUser, type TestUser } from "../../helpers/factories.ts";
import { get, publish, writePage } from "./support.ts";
import { buildSiteModel, type SiteModelInput } from "../../../src/publish/site/model.ts";
import { servedSiteUrls } from "../../../src/publish/site/urls.ts";
import { llmsFullTxt, llmsTxt, manifestJson, rssXml, sitemapXml } from "../../../src/publish/site/feeds.ts";
import { renderLayout } from "../../../src/publish/site/layout.ts";
import type { PageRow } from "../../../src/content/page-records.ts";

const EVIL_TITLE = `</title><script>alert(1)</script> & "quotes" 'single' <b>`;
const EVIL_DESC = `" onmouseover="alert(2)" x="<script>alert(3)</script>]]>`;

/** Well-formed XML, checked by a real parser (the browser's, via a Bun-side stand-in: HTMLRewriter refuses nothing, so parse strictly here). */
function assertWellFormedXml(xml: string): void {
  expect(xml.startsWith("<?xml")).toBe(true);
  expect(xml).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
  expect(xml).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/);
  // Every & starts an entity; no raw < inside text.
  expect(xml).not.toMatch(/&(?!(amp|lt|gt|quot|apos|#\d+);)/);
  const stack: string[] = [];
  for (const m of xml.replace(/<\?xml[^>]*\?>/, "").matchAll(/<(\/?)([A-Za-z][\w:.-]*)[^<>]*?(\/?)>|<|>/g)) {
    if (m[0] === "<") throw new Error("a raw < in XML text");
    if (m[0] === ">") continue;
    if (m[3] === "/") continue;
    if (m[1] === "/") expect(stack.pop()).toBe(m[2]);
    else stack.push(m[2]!);
  }
  expect(stack).toEqual([]);
}

describe("escaping, through the real server", () => {
  let server: TestServer;
  let owner: TestUser;
  beforeAll(async () => {
    server = await startTestServer();
    owner = await registerUser(server.url);
    await publish(owner);
    await writePage(owner, "evil.md", { title: EVIL_TITLE, description: EVIL_DESC, body: "plain body\n" });
  }, 30_000);
  afterAll(() => server?.close());

  test("a hostile title and description stay text in <title>, meta, Open Graph and the navigation", async () => {
    const r = await get(server, `/p/${owner.workspaceSlug}/evil`);
    expect(r.status).toBe(200);
    expect(r.text).not.toContain("<script>alert");
    expect(r.text).not.toContain(`" onmouseover="alert(2)"`);
    expect(r.text).toContain("<title>&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot; &#39;single&#39; &lt;b&gt; · ");
    expect(r.text).toContain(`<meta property="og:description" content="&quot; onmouseover=&quot;alert(2)&quot;`);
    // Only the site's own scripts exist on the page.
    expect((r.text.match(/<script\b/g) ?? []).length).toBe(3);
  });

  test("the instance's own robots.txt opens the published sites to crawlers and closes the app", async () => {
    const r = await get(server, "/robots.txt");
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    const rules = r.text.split("\n").filter((l) => l !== "" && !l.startsWith("#"));
    expect(rules).toEqual(["User-agent: *", "Allow: /p/", "Disallow: /"]);
  });

  test("sitemap, RSS, llms.txt and manifest.json carry it escaped for their formats", async () => {
    const rss = (await get(server, `/p/${owner.workspaceSlug}/rss.xml`)).text;
    assertWellFormedXml(rss);
    expect(rss).toContain("<title>&lt;/title&gt;&lt;script&gt;");
    assertWellFormedXml((await get(server, `/p/${owner.workspaceSlug}/sitemap.xml`)).text);
    const llms = (await get(server, `/p/${owner.workspaceSlug}/llms.txt`)).text;
    expect(llms).toContain(`- [\\</title\\>\\<script\\>alert(1)\\</script\\> & "quotes" 'single' \\<b\\>](`);
    expect(llms.split("\n").filter((l) => l.startsWith("- [")).every((l) => !l.includes("\n"))).toBe(true);
    const manifest = (await get(server, `/p/${owner.workspaceSlug}/manifest.json`)).text;
    expect(() => JSON.parse(manifest)).not.toThrow();
    expect(manifest).not.toContain("<");
  });

  test("PUBLISH_REQUIRE_AUTH forces members only, whatever the workspace says", async () => {
    const locked = await startTestServer({ PUBLISH_REQUIRE_AUTH: "true" });
    try {
      const u = await registerUser(locked.url);
      await publish(u, { visibility: "public" });
      await writePage(u, "p.md", { title: "P", body: "x\n" });
      const r = await get(locked, `/p/${u.workspaceSlug}/p`);
      expect(r.status).toBe(302);
      const status = await u.client.get(`/api/v1/workspaces/${u.workspaceId}/site`);
      expect(status.body).toMatchObject({ visibility: "public", effective_visibility: "authenticated", require_auth: true });
    } finally {
      await locked.close();
    }
  }, 30_000);
});

describe("feeds as pure functions", () => {
  const row = (path: string, title: string, extra: Partial<PageRow> = {}): PageRow => ({
    id: `01J${path.length.toString().padStart(23, "0")}`,
    workspace_id: "01JWORKSPACE00000000000000",
    path,
    title,
    description: "",
    tags: "[]",
    status: "published",
    publish: 1,
    nav_order: null,
    sort_order: null,
    content_hash: `sha256:${path}`,
    frontmatter_hash: "",
    created_by: null,
    updated_by: null,
    updated_by_name: null,
    created_at: "2026-01-01T00:00:00.000Z",
    updated_at: "2026-01-02T00:00:00.000Z",
    deleted_at: null,
    file_stat: null,
    ...extra,
  });
  const input = (rows: PageRow[], name = "Site"): SiteModelInput => ({
    workspace: { id: "01JWORKSPACE00000000000000", slug: "site", org_id: "o", name, description: "d" },
    theme: "default",
    visibility: "public",
    rows,
    manifests: { publish: null, nav: null, redirects: new Map(), problems: [] },
    versions: [],
    movedRedirects: new Map(),
  });

  test("a lone surrogate in a title breaks neither XML nor JSON", () => {
    const model = buildSiteModel(input([row("a.md", "broken \ud800 title"), row("b.md", "also \udfff")], "name \udbff"))!;
    const urls = servedSiteUrls(model, { prefix: "/p/site", origin: "https://docs.example.com", assetVersion: "1" });
    assertWellFormedXml(rssXml(model, urls));
    assertWellFormedXml(sitemapXml(model, urls));
    const manifest = manifestJson(model, urls);
    expect(JSON.parse(manifest).name).toBe("name \ufffd");
    expect(llmsTxt(model, urls)).toContain("broken \ufffd title");
    const html = renderLayout(model, model.pages[0]!, { html: "<p>x</p>", headings: [], hasMermaid: false, hasMath: false, hasCode: false }, urls, { mode: "site" });
    expect(html).not.toMatch(/[\ud800-\udfff]/);
  });

  test("llms-full.txt holds at most 200 pages and says where the rest are listed", () => {
    const rows = Array.from({ length: 250 }, (_, i) => row(`p${String(i).padStart(3, "0")}.md`, `Page ${i}`));
    const model = buildSiteModel(input(rows))!;
    const urls = servedSiteUrls(model, { prefix: "/p/site", origin: "https://x.test", assetVersion: "1" });
    const full = llmsFullTxt(model, urls, (p) => `body of ${p.title}\n`);
    expect((full.match(/^Source: /gm) ?? []).length).toBe(200);
    expect(full).toContain("50 more pages are listed in https://x.test/p/site/llms.txt");
    const llms = llmsTxt(model, urls);
    // The summary, then the paragraph naming the site's MCP endpoint, then the sections.
    expect(llms.startsWith("# Site\n\n> d\n\nMCP server: [https://x.test/p/site/mcp](https://x.test/p/site/mcp) (Streamable HTTP, read-only). Tools: ")).toBe(true);
    expect(llms).toMatch(/\n\n## [^\n]+\n\n- \[Page 0\]/);
    expect(llms).toContain("- [Page 0](https://x.test/p/site/p000.md)");
  });

  test("the RSS feed of 1,000 pages lists the 50 newest", () => {
    const rows = Array.from({ length: 1000 }, (_, i) => row(`n/${i}.md`, `N${i}`, { updated_at: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString() }));
    const model = buildSiteModel(input(rows))!;
    const rss = rssXml(model, servedSiteUrls(model, { prefix: "", origin: "https://x.test", assetVersion: "1" }));
    expect((rss.match(/<item>/g) ?? []).length).toBe(50);
    expect(rss.indexOf("<title>N999</title>")).toBeLessThan(rss.indexOf("<title>N998</title>"));
  });
});
