import { expect, test } from "bun:test";
import { LARGE_SITE_PAGES, navForPage } from "../../../src/publish/export/large-nav.ts";
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
