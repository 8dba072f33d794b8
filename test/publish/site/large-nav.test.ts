import { expect, test } from "bun:test";
import { LARGE_SITE_PAGES, MAX_LIST_ENTRIES, moreOf, navForPage, navForServedPage } from "../../../src/publish/site/large-nav.ts";
import { exportUrls } from "../../../src/publish/export/export-urls.ts";
import { NavMemo, renderLayout } from "../../../src/publish/site/layout.ts";
import type { NavItem, SiteModel, SitePage } from "../../../src/publish/site/model.ts";

const sitePage = (path: string): SitePage => ({
  id: path,
  path,
  rel: path,
  route: path.replace(/\.md$/, ""),
  title: path,
  description: "",
  tags: [],
  updatedAt: "",
  createdAt: "",
  updatedBy: null,
  contentHash: "",
});

function model(sections: number, perSection: number): SiteModel {
  const pages: SitePage[] = [];
  const nav: NavItem[] = [];
  for (let s = 0; s < sections; s++) {
    const children: NavItem[] = [];
    for (let p = 0; p < perSection; p++) {
      const page = sitePage(`s${s}/p${p}.md`);
      pages.push(page);
      children.push({ kind: "page", title: page.title, page, children: [] });
    }
    nav.push({ kind: "section", title: `Section ${s}`, page: null, children });
  }
  return { pages, nav } as unknown as SiteModel;
}

test("a small site keeps the navigation exactly as /p/ renders it", () => {
  const m = model(3, 10);
  expect(navForPage(m, m.pages[0]!)).toBe(m.nav);
});

test("a large site keeps the current section open and makes every other section one link to its first page", () => {
  const m = model(20, Math.ceil((LARGE_SITE_PAGES + 1) / 20));
  const current = m.pages.find((p) => p.path === "s3/p2.md")!;
  const nav = navForPage(m, current);
  expect(nav).toHaveLength(20);
  const open = nav[3] as Extract<NavItem, { kind: "section" }>;
  expect(open.kind).toBe("section");
  expect(open.children.length).toBe((m.nav[3] as Extract<NavItem, { kind: "section" }>).children.length);
  const closed = nav[7] as Extract<NavItem, { kind: "page" }>;
  expect(closed).toEqual({ kind: "page", title: "Section 7", page: m.pages.find((p) => p.path === "s7/p0.md")!, children: [] });
});

test("the navigation built once per folder (the layout's memo) is the navigation built for each page", () => {
  for (const [sections, perSection] of [
    [3, 10],
    [20, Math.ceil((LARGE_SITE_PAGES + 1) / 20)],
  ] as const) {
    const m = model(sections, perSection);
    const full = {
      ...m,
      workspace: { id: "ws", slug: "ws", orgId: "org" },
      name: "Docs",
      description: "",
      theme: "default",
      versions: [],
      version: null,
      byPath: new Map(m.pages.map((p) => [p.path, p])),
    } as unknown as SiteModel;
    // A section that is a page itself, with a nested section under it: the trail goes two levels deep.
    const s0 = full.nav[0] as Extract<NavItem, { kind: "section" }>;
    full.nav[0] = { kind: "page", title: "Section 0", page: full.pages[0]!, children: [{ kind: "section", title: "Inner", page: null, children: s0.children.slice(1) }] };
    full.nav.push({ kind: "heading", title: "More" }, { kind: "link", title: "Elsewhere", url: "https://example.com/" });
    let memo = new NavMemo();
    let folder = "";
    for (const page of full.pages) {
      const at = page.path.slice(0, page.path.lastIndexOf("/"));
      if (at !== folder) [memo, folder] = [new NavMemo(), at];
      const body = { html: "<p>x</p>", headings: [], hasMermaid: false, hasMath: false, hasCode: false };
      const zipPath = page.path.replace(/\.md$/, ".html");
      const pageModel = { ...full, nav: navForPage(full, page) };
      const once = renderLayout(pageModel, page, body, exportUrls(full, [full], zipPath, null), { mode: "export", navMemo: memo });
      const each = renderLayout(pageModel, page, body, exportUrls(full, [full], zipPath, null), { mode: "export" });
      expect(once).toBe(each);
      expect(once).toContain(`aria-current="page"`);
    }
  }
});

test("a served page shows a long list around the reader's entry; each run left out is one entry naming its place in the list", () => {
  // One folder of 1,000 pages side by side.
  const m = model(1, 1000);
  const folder = (m.nav[0] as Extract<NavItem, { kind: "section" }>).children;
  expect(folder.length).toBeGreaterThan(MAX_LIST_ENTRIES);
  const shown = (navForServedPage(m, m.pages[500]!)[0] as Extract<NavItem, { kind: "section" }>).children;
  expect(shown.length).toBeLessThanOrEqual(MAX_LIST_ENTRIES);
  expect(shown.some((item) => item.kind === "page" && item.page.path === "s0/p500.md")).toBe(true);
  const runs = shown.map(moreOf).filter((r) => r !== undefined);
  expect(runs).toEqual([
    { list: "0", from: 0, to: 450 },
    { list: "0", from: 551, to: 1000 },
  ]);
  // Every entry of the list is either shown or in a run, once.
  const pages = shown.filter((item) => item.kind === "page").length;
  expect(pages + runs.reduce((n, r) => n + (r.to - r.from), 0)).toBe(1000);
  // At the list's start the window starts there too; the export keeps the whole list.
  const first = (navForServedPage(m, m.pages[0]!)[0] as Extract<NavItem, { kind: "section" }>).children;
  expect(first.map(moreOf).filter((r) => r !== undefined)).toEqual([{ list: "0", from: 101, to: 1000 }]);
  expect((navForPage(m, m.pages[500]!)[0] as Extract<NavItem, { kind: "section" }>).children.length).toBe(1000);
});
