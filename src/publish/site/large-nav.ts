import type { NavItem, SiteModel, SitePage } from "../site/model.ts";

/**
 * The navigation of one page on a large site. The layout can put the whole navigation on every
 * page (sections other than the current one closed, opened in place by the reader), but then a
 * page's size grows with the site (5,000 pages: over 500 KB of HTML per page, most of it the same
 * links) and an export's with the square of the page count. Above LARGE_SITE_PAGES the export and
 * the /p/ site keep the path to the current page open (with its siblings and the current section)
 * and turn every other section into a single link to its own page (or its first page): the same
 * sidebar as closed sections look, one click instead of an in-place expansion. On the /p/ site the
 * site's script turns those links back into sections it fills from the navigation file
 * (site/nav-file.ts, `collapsedKey`); the site map page lists everything without a script.
 * Smaller sites get the whole navigation.
 */
export const LARGE_SITE_PAGES = 300;

export function navForPage(model: SiteModel, page: SitePage): NavItem[] {
  if (model.pages.length <= LARGE_SITE_PAGES) return model.nav;
  return prune(model.nav, trailsOf(model).get(page.path) ?? EMPTY);
}

const EMPTY: ReadonlySet<NavItem> = new Set();

/**
 * Per page path, the navigation entries that are the page or hold it: found in one walk of the
 * navigation per model, so pruning costs a page the entries it shows, not the whole navigation.
 */
const trails = new WeakMap<SiteModel, Map<string, Set<NavItem>>>();

function trailsOf(model: SiteModel): Map<string, Set<NavItem>> {
  let found = trails.get(model);
  if (found) return found;
  found = new Map();
  const stack: NavItem[] = [];
  const walk = (items: NavItem[]) => {
    for (const item of items) {
      if (item.kind !== "page" && item.kind !== "section") continue;
      stack.push(item);
      if (item.page) {
        let trail = found!.get(item.page.path);
        if (!trail) found!.set(item.page.path, (trail = new Set()));
        for (const i of stack) trail.add(i);
      }
      walk(item.children);
      stack.pop();
    }
  };
  walk(model.nav);
  trails.set(model, found);
  return found;
}

/**
 * A closed section as a single link. The same object for every page, so the layout's navigation
 * memo (by entry) builds its HTML once per folder.
 */
const collapsedForms = new WeakMap<NavItem, NavItem>();

function collapsed(item: NavItem & { kind: "page" | "section" }): NavItem {
  let c = collapsedForms.get(item);
  if (!c) {
    const first = item.page ?? firstPage(item.children);
    c = first ? { kind: "page", title: item.title, page: first, children: [] } : { ...item, children: [] };
    collapsedForms.set(item, c);
  }
  return c;
}

/**
 * Where a collapsed entry sits in the whole navigation: its indexes from the top, joined by
 * dots ("3.1"), as the navigation file lists the entries. Set when the entry is collapsed.
 */
const keys = new WeakMap<NavItem, string>();

/** The key of a collapsed entry in the navigation file (undefined for every other entry). */
export function collapsedKey(item: NavItem): string | undefined {
  return keys.get(item);
}

function prune(items: NavItem[], trail: ReadonlySet<NavItem>, prefix = ""): NavItem[] {
  return items.map((item, i): NavItem => {
    if ((item.kind !== "page" && item.kind !== "section") || item.children.length === 0) return item;
    if (trail.has(item)) return { ...item, children: prune(item.children, trail, `${prefix}${i}.`) };
    const c = collapsed(item);
    keys.set(c, `${prefix}${i}`);
    return c;
  });
}

function firstPage(items: NavItem[]): SitePage | null {
  for (const i of items) {
    if (i.kind !== "page" && i.kind !== "section") continue;
    const p = i.page ?? firstPage(i.children);
    if (p) return p;
  }
  return null;
}
