import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../../helpers/server.ts";
import { registerUser } from "../../helpers/factories.ts";
import { SiteExporter } from "../../../src/publish/export/exporter.ts";
import { siteSourceOf } from "../../../src/publish/export/site-source.ts";
import { exportFixture, linkProblems, SECRET_TITLE, SECRET_WORD, unzip, type ExportFixture } from "./support.ts";

let server: TestServer;
let fx: ExportFixture;
let files: Map<string, Uint8Array>;
let zipBytes: Uint8Array;
const text = (name: string) => new TextDecoder().decode(files.get(name)!);

beforeAll(async () => {
  server = await startTestServer({ QUIRE_WATCH_FILES: "false" });
  fx = await exportFixture(server);
  const res = await fetch(`${server.url}/api/v1/workspaces/${fx.wsId}/export`, {
    headers: { authorization: `Bearer ${fx.owner.accessToken}`, "x-forwarded-for": fx.owner.client.ip },
  });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("application/zip");
  expect(res.headers.get("content-disposition")).toBe(`attachment; filename="${fx.slug}-export.zip"`);
  zipBytes = new Uint8Array(await res.arrayBuffer());
  files = unzip(zipBytes);
});

afterAll(() => server?.close());

/** The same export again, made by the exporter directly (the API allows one a day): the bytes of the ZIP. */
async function exportAgainAsService(baseUrl: string | null = null, threads?: number): Promise<Blob> {
  const chunks: Uint8Array[] = [];
  const exporter = new SiteExporter({ ledger: server.services.ledger, site: siteSourceOf(server.services.site, server.services.workspaces) });
  const it = exporter.zip(fx.wsId, { baseUrl, threads });
  for (;;) {
    const next = await it.next();
    if (next.done) break;
    chunks.push(next.value);
  }
  return new Blob(chunks as NonNullable<ConstructorParameters<typeof Blob>[0]>);
}

describe("static export", () => {
  test("holds the layout of docs/architecture.md §9: pages as .html with .md copies, theme files, uploads, sitemap, robots, llms, search", () => {
    for (const name of [
      "index.html",
      "index.md",
      "media.html",
      "media.md",
      "reference/api.html",
      "reference/deep/nested.html",
      "welcome.html",
      "components.html",
      "guides/index.html",
      "guides/getting-started.html",
      "assets/logo.png",
      "_quire/site.css",
      "_quire/site.js",
      "_quire/search.js",
      "_quire/search/docs.js",
      "sitemap.xml",
      "robots.txt",
      "llms.txt",
    ]) {
      expect(files.has(name)).toBe(true);
    }
    expect(text("media.md")).not.toContain("title: Media"); // the Markdown without its frontmatter
    expect(text("media.md")).toContain("![The logo](assets/logo.png)");
    expect(files.has("assets/private-notes.png")).toBe(false); // no published page references it
  });

  test("every href and src resolves to a file inside the ZIP; nothing absolute, nothing under /p/", () => {
    expect(linkProblems(files)).toEqual([]);
    // The starter's embedded video (an iframe on the site) is a plain link in the export, to the
    // address the page wrote (the video's own page, not the bare player): nothing is fetched from another origin.
    expect(text("components.html")).not.toContain("<iframe");
    expect(text("components.html")).toContain(`<p class="embed-link"><a href="https://www.youtube.com/watch?v=dQw4w9WgXcQ" rel="noopener">A video</a></p>`);
    expect(text("reference/deep/nested.html")).toContain(`href="../api.html"`);
    expect(text("media.html")).toContain(`src="assets/logo.png"`);
    // An image the web editor inserted (an uploads API address) is the exported upload.
    expect(text("media.html")).toContain(`src="assets/shot.png"`);
    expect(files.has("assets/shot.png")).toBe(true);
  });

  test("unpublished pages appear nowhere: not as files, titles, links, search entries or in llms.txt", () => {
    expect([...files.keys()].filter((n) => n.startsWith("secret/"))).toEqual([]);
    const decoder = new TextDecoder();
    for (const [name, bytes] of files) {
      const content = decoder.decode(bytes);
      expect({ name, title: content.includes(SECRET_TITLE), word: content.includes(SECRET_WORD) }).toEqual({ name, title: false, word: false });
    }
    // The link to it in reference/api.md is shown as broken text, not a link.
    expect(text("reference/api.html")).not.toContain("plan.html");
  });

  test("advertises no MCP endpoint: a folder of files has no server to answer it", () => {
    const decoder = new TextDecoder();
    for (const [name, bytes] of files) {
      if (!/\.(html|txt)$/.test(name)) continue;
      const content = decoder.decode(bytes);
      expect({ name, link: content.includes('rel="mcp"'), snippet: content.includes("assistant-snippet"), line: content.includes("MCP server") }).toEqual({ name, link: false, snippet: false, line: false });
    }
  });

  test("the same input gives the same bytes", async () => {
    const again = new Uint8Array(await (await exportAgainAsService()).arrayBuffer());
    expect(again.length).toBe(zipBytes.length);
    expect(Buffer.compare(Buffer.from(again), Buffer.from(zipBytes))).toBe(0);
  });

  test("pages rendered on worker threads give the same bytes as on one thread", async () => {
    const threaded = new Uint8Array(await (await exportAgainAsService(null, 2)).arrayBuffer());
    expect(Buffer.compare(Buffer.from(threaded), Buffer.from(zipBytes))).toBe(0);
  });

  test("hostile content is as harmless in the ZIP as on the site", () => {
    const html = text("hostile.html");
    const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
    // Only the layout's own scripts: the mode switch, the config, site.js and search.js.
    expect(scripts.every((s) => /^<script>$|id="quire-site-config"|src="_quire\/(site|search)\.js"/.test(s))).toBe(true);
    // The page's <script> survives only as escaped text (the GFM tag filter), never as a script.
    expect(html).not.toMatch(/<script[^>]*>[^<]*__pwned/);
    expect(html).not.toMatch(/\son[a-z]+=/i);
    expect(html).not.toMatch(/(href|src|action)\s*=\s*["']?\s*javascript:/i);
    expect(html).not.toContain("<iframe");
    expect(html).not.toContain("<style");
  });

  test("--base-url gives absolute sitemap entries and canonical links; without it they stay relative", async () => {
    expect(text("sitemap.xml")).toContain("<loc>media.html</loc>");
    expect(text("media.html")).not.toContain(`rel="canonical"`);
    const withBase = unzip(new Uint8Array(await (await exportAgainAsService("https://docs.example.com/handbook/")).arrayBuffer()));
    const sitemap = new TextDecoder().decode(withBase.get("sitemap.xml")!);
    expect(sitemap).toContain("<loc>https://docs.example.com/handbook/reference/api.html</loc>");
    expect(new TextDecoder().decode(withBase.get("reference/api.html")!)).toContain(`<link rel="canonical" href="https://docs.example.com/handbook/reference/api.html">`);
    expect(new TextDecoder().decode(withBase.get("robots.txt")!)).toContain("Sitemap: https://docs.example.com/handbook/sitemap.xml");
    // Only the canonical link (and Open Graph's og:url, not an href) is absolute, under the base URL.
    expect(linkProblems(withBase, "https://docs.example.com/handbook/")).toEqual([]);
  });

  test("the search index covers published pages and loads as scripts", () => {
    const docs = text("_quire/search/docs.js");
    expect(docs.startsWith('window.__quireSearchLoad("docs",')).toBe(true);
    expect(docs).toContain("reference/api.html");
    expect(text("_quire/search/t-e.js")).toContain('"endpoints"');
  });
});

describe("export API: who may, how often, bad input", () => {
  test("a second export of the workspace within 24 hours is 429 with the rate-limit shape", async () => {
    const res = await fx.owner.client.request("POST", `/api/v1/workspaces/${fx.wsId}/export`);
    expect(res.status).toBe(429);
    expect(res.body.error).toBe("RATE_LIMITED");
    expect(typeof res.body.request_id).toBe("string");
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(23 * 3600);
    expect(res.headers.get("x-ratelimit-limit")).toBe("1");
  });

  test("unknown workspace 404, non-member 404, editor 403, anonymous 401, bad base_url 400", async () => {
    const other = await registerUser(server.url);
    expect((await fx.owner.client.request("GET", `/api/v1/workspaces/01ARZ3NDEKTSV4RRFFQ69G5FAV/export`)).status).toBe(404);
    expect((await other.client.request("GET", `/api/v1/workspaces/${fx.wsId}/export`)).status).toBe(404);
    expect((await fx.owner.client.request("GET", `/api/v1/workspaces/${fx.wsId}/export`, { token: null })).status).toBe(401);
    // An editor of the workspace (invited through the members API) may not export.
    const editor = await registerUser(server.url);
    server.services.db
      .query("INSERT INTO workspace_members (workspace_id, user_id, role, joined_at) VALUES (?, ?, 'editor', ?)")
      .run(fx.wsId, editor.id, new Date().toISOString());
    expect((await editor.client.request("GET", `/api/v1/workspaces/${fx.wsId}/export`)).status).toBe(403);
    const fresh = await registerUser(server.url);
    const bad = await fresh.client.request("GET", `/api/v1/workspaces/${fresh.workspaceId}/export?base_url=javascript:alert(1)`);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe("VALIDATION_ERROR");
    expect(bad.body.details.field).toBe("base_url");
    // The refused request did not use the day's export.
    expect((await fresh.client.request("GET", `/api/v1/workspaces/${fresh.workspaceId}/export?base_url=https://x.example/`)).status).toBe(200);
  });

  test("a prepared download (MCP quire_export) is served for 15 minutes at an unguessable URL", async () => {
    const owner = await registerUser(server.url);
    const principal = { kind: "session" as const, userId: owner.id, orgId: server.services.workspaces.byId(owner.workspaceId)!.org_id, sessionId: "s" };
    const prepared = await server.services.exporter.prepareDownload(principal, owner.workspaceId);
    expect(prepared.pages).toBeGreaterThan(0);
    expect(Date.parse(prepared.expires_at) - Date.now()).toBeGreaterThan(14 * 60 * 1000);
    const path = new URL(prepared.url).pathname;
    const res = await fetch(`${server.url}${path}`);
    expect(res.status).toBe(200);
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(bytes.length).toBe(prepared.bytes);
    expect(unzip(bytes).has("welcome.html")).toBe(true);
    expect((await fetch(`${server.url}/api/v1/exports/${"A".repeat(43)}`)).status).toBe(404);
    expect((await fetch(`${server.url}/api/v1/exports/short`)).status).toBe(400);
  });

  test("a named version is exported under its own folder, with relative links between versions", async () => {
    const ws = server.services.workspaces.byId(fx.wsId)!;
    const principal = { kind: "session" as const, userId: fx.owner.id, orgId: ws.org_id, sessionId: "s" };
    await server.services.site.createVersion(principal, fx.wsId, { slug: "v1", name: "Version 1", snapshot: true });
    const withVersion = unzip(new Uint8Array(await (await exportAgainAsService()).arrayBuffer()));
    for (const name of ["index.html", "reference/api.html", "v1/index.html", "v1/reference/api.html", "v1/reference/api.md", "v1/sitemap.xml", "v1/llms.txt"]) {
      expect({ name, present: withVersion.has(name) }).toEqual({ name, present: true });
    }
    expect([...withVersion.keys()].some((n) => n.startsWith("versions/"))).toBe(false); // the version's folder is its slug
    // Raw HTML is not rewritten by the renderer (its decision record): the hostile page's <img src>
    // written relative to the root does not follow the page into the version's folder, here as on /p/.
    expect(linkProblems(withVersion)).toEqual(["v1/hostile.html: assets/logo.png → v1/assets/logo.png is not in the ZIP"]);
    const v1 = new TextDecoder().decode(withVersion.get("v1/reference/api.html")!);
    expect(v1).toContain(`href="../../_quire/site.css"`);
    expect(v1).toContain(`href="../index.html"`);
  }, 30_000);
});
