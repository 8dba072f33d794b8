/**
 * A large published site (above LARGE_SITE_PAGES): each page carries the reader's path of the
 * navigation, not every title of the site; the rest is one versioned navigation file the
 * site's script reads, a site map page lists every page without a script, and sitemap.xml
 * names them all for search engines.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../../helpers/server.ts";
import { registerUser, type TestUser } from "../../helpers/factories.ts";
import { LARGE_SITE_PAGES } from "../../../src/publish/site/large-nav.ts";
import { get, publish, writePage } from "./support.ts";

const SECTIONS = 8;
const PER_SECTION = 40; // 320 pages: above LARGE_SITE_PAGES
let server: TestServer;
let owner: TestUser;
let closed: TestUser;

/** Writes `sections × perSection` published pages into the workspace's folder and reconciles them. */
async function manyPages(user: TestUser, sections: number, perSection: number): Promise<void> {
  const root = server.services.ledger.dir(user.workspaceId).root;
  for (let s = 0; s < sections; s++) {
    mkdirSync(join(root, `part-${s}`), { recursive: true });
    for (let p = 0; p < perSection; p++) {
      writeFileSync(join(root, `part-${s}`, `topic-${p}.md`), `---\ntitle: Part ${s} topic ${p}\npublish: true\n---\n\nText of part ${s}, topic ${p}.\n`);
    }
  }
  await server.services.reconciler.reconcile(user.workspaceId);
}

beforeAll(async () => {
  expect(SECTIONS * PER_SECTION).toBeGreaterThan(LARGE_SITE_PAGES);
  server = await startTestServer();
  owner = await registerUser(server.url);
  await publish(owner);
  await manyPages(owner, SECTIONS, PER_SECTION);
  closed = await registerUser(server.url);
  await publish(closed, { visibility: "authenticated" });
  await manyPages(closed, SECTIONS, PER_SECTION);
}, 60_000);
afterAll(() => server?.close());

const site = (path: string) => `/p/${owner.workspaceSlug}${path}`;
const navFileOf = (html: string) => /<nav id="sidebar"[^>]* data-nav-file="([^"]+)"/.exec(html)?.[1]?.replace(/&amp;/g, "&");

describe("a page of a large site", () => {
  test("carries its own section open with its siblings, every other section as one link keyed into the navigation file", async () => {
    const page = await get(server, site("/part-3/topic-7"));
    expect(page.status).toBe(200);
    const nav = /<nav id="sidebar"[\s\S]*?<\/nav>/.exec(page.text)![0];
    // The reader's section: open, with all its pages.
    for (let p = 0; p < PER_SECTION; p++) expect(nav).toContain(`href="/p/${owner.workspaceSlug}/part-3/topic-${p}"`);
    expect(nav).toContain(`aria-current="page"`);
    // Another section: one link (to its first page), no page beyond it.
    expect(nav).toMatch(new RegExp(`<li data-nav-key="\\d+"><a class="nav-link" href="/p/${owner.workspaceSlug}/part-5/topic-0">`));
    expect(nav).not.toContain(`/part-5/topic-1"`);
    expect(nav).toContain(`<a href="/p/${owner.workspaceSlug}/site-map">All pages</a>`);
    // The size no longer grows with the site: a fraction of the whole navigation.
    const links = (nav.match(/class="nav-link/g) ?? []).length;
    expect(links).toBeLessThan(PER_SECTION + SECTIONS + 10);
  });

  test("the navigation file: the whole tree at a URL naming its version, kept for good; a new page is a new version", async () => {
    const page = await get(server, site("/part-3/topic-7"));
    const url = navFileOf(page.text)!;
    expect(url).toMatch(new RegExp(`^/p/${owner.workspaceSlug}/nav\\.json\\?v=[0-9a-f]{16}$`));
    const file = await get(server, url);
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(file.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const nav = JSON.parse(file.text) as { items: Array<{ t: string; u?: string; c?: Array<{ t: string; u?: string }> }> };
    // Each key in the page names the entry of the file it stands for, with every page of it.
    const keyed = [...page.text.matchAll(/<li data-nav-key="([\d.]+)"><a class="nav-link" href="([^"]+)"/g)];
    expect(keyed.length).toBeGreaterThanOrEqual(SECTIONS - 1);
    for (const [, key, href] of keyed) {
      let entry: { t: string; u?: string; c?: Array<{ t: string; u?: string }> } | undefined;
      let list = nav.items as typeof entry[];
      for (const i of key!.split(".")) {
        entry = list[Number(i)];
        list = (entry?.c ?? []) as typeof list;
      }
      const urls = entry!.c!.map((c) => c.u);
      // The link goes to the section's own page or its first one.
      expect(entry!.u === href || urls[0] === href).toBe(true);
      if (href!.includes("/part-")) expect(urls.toSorted()).toEqual(Array.from({ length: PER_SECTION }, (_, p) => `${href!.replace(/topic-0$/, "")}topic-${p}`).toSorted());
    }
    // Asked for without its version (or another one), the file is the current one, cached as a page is.
    const plain = await get(server, site("/nav.json"));
    expect(plain.text).toBe(file.text);
    expect(plain.headers.get("cache-control")).toBe("public, max-age=300");

    await writePage(owner, "part-0/zz-new.md", { title: "A new page" });
    const after = await get(server, site("/part-3/topic-7"));
    const next = navFileOf(after.text)!;
    expect(next).not.toBe(url);
    expect((await get(server, next)).text).toContain("A new page");
  });

  test("the site map lists every page without a script, and sitemap.xml names every one", async () => {
    const map = await get(server, site("/site-map"));
    expect(map.status).toBe(200);
    expect(map.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(map.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(map.text).not.toContain("<script");
    const sitemap = await get(server, site("/sitemap.xml"));
    for (let s = 0; s < SECTIONS; s++) {
      for (let p = 0; p < PER_SECTION; p++) {
        expect(map.text).toContain(`<a href="/p/${owner.workspaceSlug}/part-${s}/topic-${p}">`);
        expect(sitemap.text).toContain(`/p/${owner.workspaceSlug}/part-${s}/topic-${p}</loc>`);
      }
    }
  });

  test("a page named site-map is the page: the site's own list never hides a writer's page", async () => {
    await writePage(owner, "site-map.md", { title: "Our map", body: "Hand-made map.\n" });
    const page = await get(server, site("/site-map"));
    expect(page.text).toContain("Hand-made map.");
  });
});

describe("a folder of hundreds of pages side by side", () => {
  test("a page shows the entries around its own; the rest is one entry per run, keyed into the navigation file and linked to the site map", async () => {
    const flat = await registerUser(server.url);
    await publish(flat);
    await manyPages(flat, 1, 400);
    const page = await get(server, `/p/${flat.workspaceSlug}/part-0/topic-200`);
    expect(page.status).toBe(200);
    const nav = /<nav id="sidebar"[\s\S]*?<\/nav>/.exec(page.text)![0];
    const runs = [...nav.matchAll(/<li class="nav-more" data-nav-more="([\d.]*):(\d+):(\d+)"><a class="nav-link" href="([^"]+)">(\d+) more pages<\/a><\/li>/g)];
    expect(runs.length).toBe(2);
    for (const [, , from, to, href, count] of runs) {
      expect(href).toBe(`/p/${flat.workspaceSlug}/site-map`);
      expect(Number(count)).toBe(Number(to) - Number(from));
    }
    expect(nav).toContain(`href="/p/${flat.workspaceSlug}/part-0/topic-200" aria-current="page"`);
    expect((nav.match(/class="nav-link/g) ?? []).length).toBeLessThan(160);
    // The runs name the entries of the file's list that the page left out, and only those.
    const file = JSON.parse((await get(server, navFileOf(page.text)!)).text) as { items: Array<{ t: string; u?: string; c?: Array<{ u: string }> }> };
    const [, list] = runs[0]!;
    const entries = file.items[Number(list)]!.c!;
    const shown = new Set([...nav.matchAll(/href="([^"]+)"/g)].map((m) => m[1]));
    for (const [, , from, to] of runs) for (const e of entries.slice(Number(from), Number(to))) expect(shown.has(e.u)).toBe(false);
    const inRuns = runs.reduce((n, [, , from, to]) => n + Number(to) - Number(from), 0);
    expect(inRuns + entries.filter((e) => shown.has(e.u)).length).toBe(entries.length);
  });
});

describe("a large members-only site", () => {
  test("its navigation file and site map are the members' only, never stored by a shared cache", async () => {
    for (const path of ["/nav.json", "/site-map"]) {
      const anonymous = await get(server, `/p/${closed.workspaceSlug}${path}`);
      expect(anonymous.status).toBe(302);
    }
    const cookie = await closed.client.post("/api/v1/site-session");
    const value = cookie.headers.getSetCookie().find((c) => c.startsWith("quire_site="))!.split(";")[0]!;
    const page = await get(server, `/p/${closed.workspaceSlug}/part-1/topic-1`, { cookie: value });
    const url = navFileOf(page.text)!;
    const file = await get(server, url, { cookie: value });
    expect(file.status).toBe(200);
    expect(file.headers.get("cache-control")).toBe("private, max-age=31536000, immutable");
    const map = await get(server, `/p/${closed.workspaceSlug}/site-map`, { cookie: value });
    expect(map.headers.get("cache-control")).toBe("private, no-store");
  });
});
