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

/**
 * Entries of one list shown in a served page at most; a longer list on the reader's path (a
 * folder of a thousand pages side by side) shows LIST_WINDOW entries either side of the reader's
 * and one "more" entry (`moreOf`) for each run left out, which the site's script fills from the
 * navigation file and which links to the site map without it. The export keeps whole lists: it
 * has neither the file nor the site map.
 */
export const MAX_LIST_ENTRIES = 150;
const LIST_WINDOW = 50;

/** The navigation of a page of a large site served by `quire serve`: navForPage, long lists cut to a window. */
export function navForServedPage(model: SiteModel, page: SitePage): NavItem[] {
  if (model.pages.length <= LARGE_SITE_PAGES) return model.nav;
  return prune(model.nav, trailsOf(model).get(page.path) ?? EMPTY, "", true);
}

/** A run of entries left out of a long list: the list's key ("" for the top), and the run's indexes [from, to). */
interface MoreEntries {
  list: string;
  from: number;
  to: number;
}

const more = new WeakMap<NavItem, MoreEntries>();

/** The run of entries a "more" entry stands for (undefined for every other entry). */
export function moreOf(item: NavItem): MoreEntries | undefined {
  return more.get(item);
}

function moreEntry(list: string, from: number, to: number): NavItem {
  const item: NavItem = { kind: "heading", title: `${to - from} more` };
  more.set(item, { list, from, to });
  return item;
}

/** The entries of a long list around index `at` (the reader's entry; -1: none), with a "more" entry per run left out. */
function windowed(items: NavItem[], at: number, list: string): Array<{ item: NavItem; index: number } | NavItem> {
  const centre = at === -1 ? 0 : at;
  const from = Math.max(0, Math.min(centre - LIST_WINDOW, items.length - 2 * LIST_WINDOW - 1));
  const to = Math.min(items.length, from + 2 * LIST_WINDOW + 1);
  const out: Array<{ item: NavItem; index: number } | NavItem> = [];
  if (from > 0) out.push(moreEntry(list, 0, from));
  for (let i = from; i < to; i++) out.push({ item: items[i]!, index: i });
  if (to < items.length) out.push(moreEntry(list, to, items.length));
  return out;
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

function prune(items: NavItem[], trail: ReadonlySet<NavItem>, prefix = "", cut = false): NavItem[] {
  const one = (item: NavItem, i: number): NavItem => {
    if ((item.kind !== "page" && item.kind !== "section") || item.children.length === 0) return item;
    if (trail.has(item)) return { ...item, children: prune(item.children, trail, `${prefix}${i}.`, cut) };
    const c = collapsed(item);
    keys.set(c, `${prefix}${i}`);
    return c;
  };
  if (!cut || items.length <= MAX_LIST_ENTRIES) return items.map(one);
  const at = items.findIndex((item) => trail.has(item));
  return windowed(items, at, prefix.slice(0, -1)).map((e) => ("index" in e ? one(e.item, e.index) : e));
}

function firstPage(items: NavItem[]): SitePage | null {
  for (const i of items) {
    if (i.kind !== "page" && i.kind !== "section") continue;
    const p = i.page ?? firstPage(i.children);
    if (p) return p;
  }
  return null;
}
