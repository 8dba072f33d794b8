import type { NavItem, SiteModel, SitePage } from "../site/model.ts";

/**
 * The navigation of one exported page on a large site. The site's layout puts the whole navigation
 * on every page (sections other than the current one closed, opened in place by the reader): on the
 * /p/ site each page is rendered once and cached, but an export writes every page, so its size grows
 * with the square of the page count (10,000 pages × 10,000 links). Above LARGE_SITE_PAGES the
 * export keeps the path to the current page open and turns every other section into a single link
 * to its own page (or its first page): the same sidebar as closed sections look, one click instead
 * of an in-place expansion. Smaller sites get the navigation exactly as /p/ renders it.
 */
export const LARGE_SITE_PAGES = 300;

export function navForPage(model: SiteModel, page: SitePage): NavItem[] {
  if (model.pages.length <= LARGE_SITE_PAGES) return model.nav;
  return prune(model.nav, page);
}

function prune(items: NavItem[], current: SitePage): NavItem[] {
  return items.map((item): NavItem => {
    if ((item.kind !== "page" && item.kind !== "section") || item.children.length === 0) return item;
    if (item.page?.path === current.path || contains(item.children, current)) return { ...item, children: prune(item.children, current) };
    const first = item.page ?? firstPage(item.children);
    return first ? { kind: "page", title: item.title, page: first, children: [] } : { ...item, children: [] };
  });
}

function contains(items: NavItem[], page: SitePage): boolean {
  for (const i of items) {
    if (i.kind !== "page" && i.kind !== "section") continue;
    if (i.page?.path === page.path || contains(i.children, page)) return true;
  }
  return false;
}

function firstPage(items: NavItem[]): SitePage | null {
  for (const i of items) {
    if (i.kind !== "page" && i.kind !== "section") continue;
    const p = i.page ?? firstPage(i.children);
    if (p) return p;
  }
  return null;
}
