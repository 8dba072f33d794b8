import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { RenderCache } from "../../../src/publish/render/cache.ts";
import { renderMarkdown, type LinkTarget, type RenderOptions } from "../../../src/publish/render/index.ts";
import { starterWorkspace } from "../../collab/support.ts";
import { registerUser, type TestUser } from "../../helpers/factories.ts";
import { startTestServer, type TestServer } from "../../helpers/server.ts";
import { elements } from "./html.ts";

let server: TestServer;
let owner: TestUser;
let ws: { id: string; slug: string };

beforeAll(async () => {
  server = await startTestServer();
  owner = await registerUser(server.url);
  ws = starterWorkspace(server, owner.id);
});
afterAll(() => server.close());

/** The page's body as it is on disk (frontmatter removed): what the site will render. */
function bodyOnDisk(path: string): string {
  const file = readFileSync(join(server.dataDir, "workspaces", ws.id, path), "utf8");
  return file.replace(/^---\n[\s\S]*?\n---\n/, "");
}

/** Links resolve against the pages the ledger has now (a site would also check `publish`). */
function ledgerLinks(pagePath: string): RenderOptions {
  const exists = (p: string) =>
    server.services.db.query<{ n: number }, [string, string]>("SELECT count(*) AS n FROM pages WHERE workspace_id = ? AND path = ?").get(ws.id, p)!.n > 0;
  return {
    pagePath,
    pageExists: exists,
    resolveLink: (t: LinkTarget) => (t.kind === "page" && !exists(t.path) ? null : `/p/${ws.slug}/${t.path.replace(/\.md$/, "")}`),
  };
}

const within = async (ms: number, check: () => boolean) => {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > ms) throw new Error(`not within ${ms} ms`);
    await Bun.sleep(10);
  }
};

describe("render cache", () => {
  test("the seeded starter components page renders every component, and a second render is a cache hit", () => {
    const cache = new RenderCache();
    const body = bodyOnDisk("components.md");
    const first = cache.render(body, ledgerLinks("components.md"), { scope: ws.id, linkContext: "site" });
    expect(first.notices).toEqual([]);
    expect(first.hasMermaid && first.hasMath && first.hasCode).toBe(true);
    const again = cache.render(body, ledgerLinks("components.md"), { scope: ws.id, linkContext: "site" });
    expect(again).toBe(first);
    expect([cache.hits, cache.misses]).toEqual([1, 1]);
    // Another link context (the export) or another page path is another render.
    cache.render(body, ledgerLinks("components.md"), { scope: ws.id, linkContext: "export" });
    cache.render(body, ledgerLinks("guides/components.md"), { scope: ws.id, linkContext: "site" });
    expect(cache.misses).toBe(3);
  });

  test("a page written through the content API drops the workspace's renders; a dead wikilink comes alive", async () => {
    const cache = new RenderCache();
    const off = cache.subscribe(server.services.bus);
    const md = "See [[runbooks/restore]].";
    const before = cache.render(md, ledgerLinks("guides/ops.md"), { scope: ws.id, linkContext: "site" });
    expect(elements(before.html).some((e) => e.attribs.class === "broken-link")).toBe(true);
    expect(cache.size).toBe(1);

    const created = await owner.client.post(`/api/v1/content/${ws.slug}/runbooks/restore.md`, { title: "Restore", body: "Steps." });
    expect(created.status).toBe(201);
    await within(2000, () => cache.size === 0);

    const after = cache.render(md, ledgerLinks("guides/ops.md"), { scope: ws.id, linkContext: "site" });
    expect(after).not.toBe(before);
    expect(elements(after.html).find((e) => e.attribs.class === "wikilink")?.attribs.href).toBe(`/p/${ws.slug}/runbooks/restore`);

    // Other workspaces' renders stay.
    cache.render(md, ledgerLinks("guides/ops.md"), { scope: "another-workspace", linkContext: "site" });
    const deleted = await owner.client.delete(`/api/v1/content/${ws.slug}/runbooks/restore.md`);
    expect(deleted.status).toBe(204);
    await within(2000, () => cache.size === 1);
    off();
  });

  test("bounded by entries and by size; the least recently used goes first", () => {
    const cache = new RenderCache({ maxEntries: 3 });
    const opts = { pagePath: "a.md", resolveLink: () => "/x" };
    for (const n of [1, 2, 3]) cache.render(`# Page ${n}`, opts, { scope: "w", linkContext: "site" });
    cache.render("# Page 1", opts, { scope: "w", linkContext: "site" }); // 1 is now the most recent
    cache.render("# Page 4", opts, { scope: "w", linkContext: "site" }); // evicts 2
    const misses = cache.misses;
    cache.render("# Page 1", opts, { scope: "w", linkContext: "site" });
    cache.render("# Page 3", opts, { scope: "w", linkContext: "site" });
    expect(cache.misses).toBe(misses);
    cache.render("# Page 2", opts, { scope: "w", linkContext: "site" });
    expect(cache.misses).toBe(misses + 1);

    const small = new RenderCache({ maxChars: 200 });
    small.render("x".repeat(500), opts, { scope: "w", linkContext: "site" });
    expect(small.size).toBe(0);
  });

  test("a cached page costs a hash and a lookup: far below rendering it", () => {
    const cache = new RenderCache();
    const body = bodyOnDisk("components.md");
    const opts = ledgerLinks("components.md");
    cache.render(body, opts, { scope: ws.id, linkContext: "site" });
    const runs = 200;
    let start = performance.now();
    for (let i = 0; i < runs; i++) cache.render(body, opts, { scope: ws.id, linkContext: "site" });
    const cached = (performance.now() - start) / runs;
    start = performance.now();
    for (let i = 0; i < 20; i++) renderMarkdown(body, opts);
    const rendered = (performance.now() - start) / 20;
    expect(cached * 5).toBeLessThan(rendered);
  });
});
