/**
 * The whole navigation of a large site outside its pages (site/large-nav.ts keeps only the
 * reader's path in each page): the navigation file the site's script fills collapsed sections
 * from (`nav.json`, one per site version, fetched once under a URL that names its version), and
 * the site map page that lists every page without a script (`site-map`).
 */
import { escapeHtml as h } from "../../core/escape.ts";
import type { NavItem, SiteModel } from "./model.ts";
import type { SiteUrls } from "./urls.ts";

/**
 * One entry of the navigation file: `t` its title, `u` its URL (absent: a section without a
 * page, or a heading), `c` its entries, `h` 1 for a heading, `x` 1 for a link off the site.
 * Short names: the file of a 5,000-page site is mostly these.
 */
interface NavEntry {
  t: string;
  u?: string;
  c?: NavEntry[];
  h?: 1;
  x?: 1;
}

function entries(items: NavItem[], urls: SiteUrls): NavEntry[] {
  return items.map((item): NavEntry => {
    switch (item.kind) {
      case "heading":
        return { t: item.title, h: 1 };
      case "link":
        return { t: item.title, u: item.url, x: 1 };
      default: {
        const e: NavEntry = { t: item.title };
        if (item.page) e.u = urls.page(item.page.path);
        if (item.children.length > 0) e.c = entries(item.children, urls);
        return e;
      }
    }
  });
}

/** The navigation file: `{items}`, the whole navigation in the order of the sidebar (indexes are collapsedKey's). */
export function navJson(model: SiteModel, urls: SiteUrls): string {
  return JSON.stringify({ items: entries(model.nav, urls) });
}

function list(items: NavItem[], urls: SiteUrls): string {
  const out: string[] = [];
  for (const item of items) {
    switch (item.kind) {
      case "heading":
        out.push(`<li class="site-map-heading">${h(item.title)}</li>`);
        break;
      case "link":
        out.push(`<li><a href="${h(item.url)}" rel="noopener">${h(item.title)}</a></li>`);
        break;
      default: {
        const label = item.page ? `<a href="${h(urls.page(item.page.path))}">${h(item.title)}</a>` : h(item.title);
        out.push(`<li>${label}${item.children.length > 0 ? `<ul>${list(item.children, urls)}</ul>` : ""}</li>`);
      }
    }
  }
  return out.join("");
}

/** The site map page: every entry of the navigation as nested lists, in the site's theme, no script. */
export function siteMapHtml(model: SiteModel, urls: SiteUrls): string {
  const title = `All pages · ${model.name}`;
  return `<!doctype html>
<html lang="en" data-theme="${h(model.theme)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${h(title)}</title>
<meta name="description" content="${h(`Every page of ${model.name}.`)}">
<meta name="color-scheme" content="light dark">
<link rel="stylesheet" href="${h(urls.theme("site.css"))}">
<link rel="stylesheet" href="${h(urls.theme(`theme-${model.theme}.css`))}">
</head>
<body>
<a class="skip-link" href="#content">Skip to content</a>
<header class="site-header"><a class="site-name" href="${h(urls.home())}">${h(model.name)}</a></header>
<main id="content" class="content site-map">
<h1>All pages</h1>
<nav aria-label="All pages"><ul>${list(model.nav, urls)}</ul></nav>
</main>
</body>
</html>
`;
}
